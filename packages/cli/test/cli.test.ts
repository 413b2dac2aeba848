import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocevals, localRulesExtractor } from '@docevals/core';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, cliCommand, degradedExtractor, ORG, runCli, startServer, spawnCli, writeDataset, type Dataset, type TestServer } from './support/harness.js';

// The same scenario against a server (HTTP) and against a local folder (--data-dir, no server).
const modes = ['http', 'data-dir'] as const;

describe.each(modes)('docevals against %s', (mode) => {
  let dir: string;
  let data: Dataset;
  let server: TestServer | null = null;
  let flags: string[];
  let storeDir: string;
  const cli = (...args: string[]) => runCli([...flags, ...args], { cwd: dir });
  const json = async (...args: string[]) => {
    const r = await cli('--json', ...args);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  /** A seeded regression: an iteration whose invoice numbers are all wrong, written into the store directly. */
  const seedRegression = async (evaluationId: string) => {
    if (server) {
      return server.docevals.evals.iterations.create(ORG, { evaluation_id: evaluationId, inference_settings: { model: 'local-rules-degraded' } });
    }
    const docevals = createDocevals({ storage: lowdbStorage({ dir: storeDir }), extractors: [localRulesExtractor(), degradedExtractor()], jobs: { resume: false } });
    try {
      return await docevals.evals.iterations.create('local', { evaluation_id: evaluationId, inference_settings: { model: 'local-rules-degraded' } });
    } finally {
      await docevals.close();
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `docevals-cli-${mode}-`));
    data = await writeDataset(dir);
    storeDir = join(dir, 'store');
    if (mode === 'http') {
      server = await startServer(storeDir);
      flags = ['--url', server.url, '--api-key', API_KEY];
    } else flags = ['--data-dir', storeDir];
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  let evaluationId: string;
  let good: string;

  it('imports a folder of 20 text, PNG and PDF files with their annotations, typed by content', async () => {
    const r = await cli('--json', 'import', data.folder, '--schema', data.schema, '--annotations', data.annotations, '--name', 'invoices');
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.evaluation.created).toBe(true);
    expect(report.created).toHaveLength(20);
    expect(report.skipped).toEqual([]);
    expect(report.refused).toEqual([]);
    const types = Object.fromEntries(report.created.map((c: { filename: string; mime_type: string }) => [c.filename, c.mime_type]));
    expect(types['invoice-01.txt']).toBe('text/plain');
    expect(types['scans/scan-1.png']).toBe('image/png');
    expect(types['invoice-1.pdf']).toBe('application/pdf');
    evaluationId = report.evaluation.id;
    const ls = await json('ls');
    expect(ls).toEqual([expect.objectContaining({ id: evaluationId, name: 'invoices', documents: 20, iterations: 0 })]);
  });

  it('runs local-rules as a background iteration and prints the leaderboard line and worst fields', async () => {
    const r = await cli('--json', 'run', 'invoices', '--model', 'local-rules');
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.outcome).toBe('completed');
    expect(report.iteration.progress).toMatchObject({ total: 20, succeeded: 20, failed: 0 });
    expect(report.leaderboard).toMatchObject({ rank: 1, of: 1, mean_similarity: 1 });
    expect(report.worst_fields).toEqual([]);
    good = report.iteration.id;
    const text = await cli('run', evaluationId, '--model', 'local-rules');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/completed eval_iter_\S+ \(local-rules\): 20\/20 succeeded, 0 failed/);
    expect(text.stdout).toMatch(/leaderboard: #\d of 2 \| mean 1\.000/);
  });

  it('compares two iterations as a table and as JSON', async () => {
    const text = await cli('compare', 'invoices');
    expect(text.code, text.stderr).toBe(0);
    // The dataset's 4 PNG and PDF documents have no ground truth: unlabeled, in no figure.
    expect(text.stdout).toContain('mean similarity 1.000 → 1.000 (+0.000) over 16 documents');
    expect(text.stdout).toContain('paired delta +0.0000, 95% CI [+0.0000, +0.0000]: not significant');
    expect(text.stdout).toMatch(/field\s+docs\s+base\s+head\s+delta/);
    const report = await json('compare', 'invoices', '--base', good, '--head', 'latest');
    expect(report.base.id).toBe(good);
    expect(report.comparison.compared_documents).toBe(16);
    expect(report.comparison.head_counts).toEqual({ succeeded: 16, failed: 0, unlabeled: 4, pending: 0 });
    expect(report.comparison.fields.map((f: { field: string }) => f.field).sort()).toEqual(['invoice_number', 'total', 'vendor']);
  });

  it('gate passes on a good iteration (text and JUnit)', async () => {
    const r = await cli('gate', 'invoices', '--min-mean', '0.9', '--max-regression', '0.02', '--against', 'previous');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('gate passed');
    const junit = join(dir, 'pass.xml');
    expect((await cli('gate', 'invoices', '--min-mean', '0.9', '--format', 'junit', '-o', junit)).code).toBe(0);
    expect(await readFile(junit, 'utf8')).toMatch(/<testsuite name="docevals gate invoices" tests="2" failures="0"/);
  });

  it('gate fails with exit 1, a clear reason and a JUnit file on a seeded regression', async () => {
    const bad = await seedRegression(evaluationId);
    expect(bad.status).toBe('completed');
    const junit = join(dir, 'gate.xml');
    const r = await cli('gate', 'invoices', '--min-mean', '0.9', '--max-regression', '0.02', '--against', 'best', '--format', 'junit', '--output', junit);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('gate FAILED');
    expect(r.stderr).toMatch(/max-regression: mean similarity dropped 0\.\d+ against the best iteration/);
    const xml = await readFile(junit, 'utf8');
    // Parsed as XML testcases: both checks, both failed, with the reason in the message.
    const cases = [...xml.matchAll(/<testcase classname="([^"]+)" name="([^"]+)">\s*<failure message="([^"]*)" type="([^"]+)">/g)];
    expect(cases.map((c) => c[2])).toEqual(['min-mean', 'max-regression']); // max-failed passed: no document failed
    expect(cases[0][3]).toMatch(/mean similarity 0\.\d{4} of eval_iter_\S+ \(local-rules-degraded; failures count 0, coverage 1\.0000, 0\.\d{4} over succeeded documents\) is below the minimum 0\.9/);
    expect(xml).toMatch(/<testsuite [^>]*tests="3" failures="2"/);
    const github = await cli('gate', 'invoices', '--max-regression', '0.02', '--format', 'github');
    expect(github.code).toBe(1);
    expect(github.stdout).toMatch(/^::error title=docevals gate max-regression \(invoices\)::mean similarity dropped/m);
    const asJson = await cli('--json', 'gate', 'invoices', '--max-regression', '0.02');
    expect(asJson.code).toBe(1);
    const report = JSON.parse(asJson.stdout);
    expect(report.passed).toBe(false);
    expect(report.regressed_fields[0].field).toBe('invoice_number');
    expect(report.regressed_documents.length).toBeGreaterThan(0);
  });

  it('exports an iteration as CSV that parses back to the stored values, and as JSONL', async () => {
    const csvFile = join(dir, 'out.csv');
    const r = await cli('export', 'invoices', good, '--format', 'csv', '-o', csvFile);
    expect(r.code, r.stderr).toBe(0);
    const rows: Array<Record<string, string>> = parse(await readFile(csvFile, 'utf8'), { columns: true });
    expect(rows.length).toBe(60); // 20 documents × 3 fields
    const total = rows.find((row) => row.filename === 'invoice-03.txt' && row.field === 'total')!;
    expect(total).toMatchObject({ status: 'succeeded', annotation: '30.5', prediction: '30.5', similarity: '1' });
    const jsonl = await cli('export', 'invoices', good, '--format', 'jsonl');
    const lines = jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(60);
    expect(lines.find((l) => l.filename === 'invoice-03.txt' && l.field === 'vendor')).toMatchObject({ annotation: 'Acme 3', prediction: 'Acme 3' });
  });

  it('re-import sends only the new files and says why it skipped or refused the others', async () => {
    const more = await writeDataset(dir, { text: 3, png: 0, pdf: 0 }, 21);
    await writeFile(join(more.folder, 'blob.bin'), Buffer.from([0, 1, 2, 3, 0, 255]));
    const before = server?.requests.length ?? 0;
    // The annotations file now also names the 20 earlier files.
    await writeFile(more.annotations, [...data.truth, ...more.truth].map(([filename, annotation]) => JSON.stringify({ filename, annotation })).join('\n') + '\n');
    const r = await cli('--json', 'import', more.folder, '--annotations', more.annotations, '--name', 'invoices');
    expect(r.code).toBe(5);
    const report = JSON.parse(r.stdout);
    expect(report.evaluation).toMatchObject({ id: evaluationId, created: false });
    expect(report.created.map((c: { filename: string }) => c.filename)).toEqual(['invoice-21.txt', 'invoice-22.txt', 'invoice-23.txt']);
    expect(report.skipped).toHaveLength(20);
    expect(report.skipped[0].reason).toBe('already in the evaluation');
    expect(report.refused).toEqual([{ filename: 'blob.bin', reason: expect.stringContaining('not a PDF, PNG') }]);
    if (server) {
      const posts = server.requests.slice(before).filter((q) => q === `POST /v1/evals/${evaluationId}/documents`);
      expect(posts).toHaveLength(3);
    }
    const text = await cli('import', more.folder, '--annotations', more.annotations, '--name', 'invoices');
    expect(text.stdout).toContain('0 created, 23 skipped, 1 refused');
    expect(text.stdout).toContain('refused blob.bin: not a PDF, PNG, JPEG, GIF, WebP or UTF-8 text file');
  });

  it('answers usage errors with exit 2 and a message that says what to fix', async () => {
    const r = await cli('run', 'no-such-eval', '--model', 'local-rules');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no evaluation has the id or name "no-such-eval"');
    const flag = await cli('gate', 'invoices', '--min-mean', 'high');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--min-mean.*a number from 0 to 1/);
    if (server) {
      const refused = await runCli(['--url', server.url, '--api-key', 'dk_wrong_key_000000', 'ls'], { cwd: dir });
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain('answered 401 unauthorized');
      expect(refused.stderr).toContain('set --api-key or DOCEVALS_API_KEY');
      const down = await runCli(['--url', 'http://127.0.0.1:9', 'ls'], { cwd: dir });
      expect(down.code).toBe(3);
      expect(down.stderr).toContain('cannot reach http://127.0.0.1:9');
    }
  });
});

describe('docevals against a server, interrupted and with a terminal', () => {
  let dir: string;
  let server: TestServer;
  let flags: string[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docevals-cli-tty-'));
    const data = await writeDataset(dir);
    server = await startServer(join(dir, 'store'));
    flags = ['--url', server.url, '--api-key', API_KEY];
    const r = await runCli([...flags, 'import', data.folder, '--schema', data.schema, '--annotations', data.annotations, '--name', 'invoices'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('Ctrl-C without a terminal leaves the iteration running, says how to cancel it, exits 130', async () => {
    const child = spawnCli([...flags, 'run', 'invoices', '--model', 'local-rules-slow'], { cwd: dir });
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    await expect.poll(() => stderr, { timeout: 20_000 }).toMatch(/iteration eval_iter_\S+ \(local-rules-slow\) on invoices: 20 documents/);
    const iterationId = /iteration (eval_iter_[A-Za-z0-9_-]+)/.exec(stderr)![1];
    const evaluationId = (await server.docevals.evals.list(ORG, { name: 'invoices' })).data[0].id;
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(130);
    expect(stderr).toContain(`docevals cancel ${evaluationId} ${iterationId}`);
    // Left running: the server finishes it.
    await expect
      .poll(async () => (await server.docevals.evals.iterations.get(ORG, { evaluation_id: evaluationId, iteration_id: iterationId, view: 'summary' })).status, { timeout: 30_000 })
      .toBe('completed');
  });

  it('Ctrl-C on a terminal asks, and "c" cancels the iteration (predictions so far kept)', async () => {
    const command = [...cliCommand, ...flags, 'run', 'invoices', '--model', 'local-rules-slow'].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    await expect.poll(() => output, { timeout: 20_000 }).toMatch(/ETA/);
    child.stdin!.write('\x03'); // the terminal's Ctrl-C
    await expect.poll(() => output, { timeout: 10_000 }).toContain('Cancel the iteration (c) or leave it running (l)?');
    child.stdin!.write('c\r');
    const code = await exited;
    expect(code, output).toBe(130);
    const iterationId = /cancelled iteration (eval_iter_[A-Za-z0-9_-]+)/.exec(output)![1];
    const evaluationId = (await server.docevals.evals.list(ORG, { name: 'invoices' })).data[0].id;
    const iteration = await server.docevals.evals.iterations.get(ORG, { evaluation_id: evaluationId, iteration_id: iterationId, view: 'summary' });
    expect(iteration.status).toBe('cancelled');
    expect(iteration.progress.succeeded).toBeLessThan(20);
  });

  it('shows a live progress bar with ETA on a pseudo-terminal', async () => {
    // util-linux `script` gives the command a pseudo-TTY; its output is the terminal's. (Async: the server runs here.)
    const command = [...cliCommand, ...flags, 'run', 'invoices', '--model', 'local-rules-slow'].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    child.stdin!.end();
    expect(code, output).toBe(0);
    expect(output).toMatch(/\d+\/20 \| 0 failed \| cost \S+ \| ETA \d+s/);
    expect(output).toMatch(/completed eval_iter_\S+ \(local-rules-slow\): 20\/20 succeeded/);
  });
});
