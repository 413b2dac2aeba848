import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sniffMimeType } from '../src/files.js';
import { API_KEY, pdf, png, runCli, SCHEMA, startServer, writeDataset } from './support/harness.js';

describe('sniffMimeType', () => {
  it('reads PDF, PNG, JPEG, GIF and WebP from their first bytes, whatever the file is called', () => {
    expect(sniffMimeType(pdf('x'), 'a.txt')).toBe('application/pdf');
    expect(sniffMimeType(png(3), 'a.pdf')).toBe('image/png');
    expect(sniffMimeType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'photo')).toBe('image/jpeg');
    expect(sniffMimeType(new TextEncoder().encode('GIF89a....'), 'x.png')).toBe('image/gif');
    const webp = new Uint8Array([...new TextEncoder().encode('RIFF'), 0, 0, 0, 0, ...new TextEncoder().encode('WEBPVP8 ')]);
    expect(sniffMimeType(webp, 'x')).toBe('image/webp');
    // RIFF that is not WebP (a WAV file) is binary of no known type.
    expect(sniffMimeType(new Uint8Array([...new TextEncoder().encode('RIFF'), 0, 0, 0, 0, ...new TextEncoder().encode('WAVE')]), 'x')).toBe(null);
  });

  it('types UTF-8 as text (JSON, CSV, Markdown by extension) and refuses other binary content', () => {
    expect(sniffMimeType(new TextEncoder().encode('Total: 3 €\n'), 'a.pdf')).toBe('text/plain');
    expect(sniffMimeType(new TextEncoder().encode('{"a":1}'), 'a.json')).toBe('application/json');
    expect(sniffMimeType(new TextEncoder().encode('a,b\n1,2\n'), 'a.CSV')).toBe('text/csv');
    expect(sniffMimeType(new Uint8Array([0xc3, 0x28, 0x41]), 'bad.txt')).toBe(null); // invalid UTF-8
    expect(sniffMimeType(new Uint8Array([0x41, 0, 0x42]), 'nul.txt')).toBe(null);
  });
});

describe('import with CSV annotations into --data-dir', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docevals-cli-csv-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('types cells by the schema, and refuses rows for no file and files with no row, saying why', async () => {
    await writeFile(join(dir, 'schema.json'), JSON.stringify(SCHEMA));
    await writeFile(join(dir, 'docs-a.txt'), 'Invoice number: A-1\nTotal: 12.50\nVendor: Zeta\n');
    await writeFile(join(dir, 'docs-b.txt'), 'Invoice number: B-2\nTotal: 7\nVendor: Eta\n');
    await writeFile(join(dir, 'docs-c.txt'), 'no annotation for me\n');
    await writeFile(join(dir, 'truth.csv'), 'filename,invoice_number,total,vendor\ndocs-a.txt,A-1,12.5,Zeta\ndocs-b.txt,B-2,7,Eta\nmissing.txt,M-1,1,Nobody\n');
    const flags = ['--data-dir', join(dir, 'store')];
    const r = await runCli([...flags, '--json', 'import', '.', '--schema', 'schema.json', '--annotations', 'truth.csv', '--name', 'csv'], { cwd: dir });
    expect(r.code).toBe(5);
    const report = JSON.parse(r.stdout);
    expect(report.created.map((c: { filename: string }) => c.filename)).toEqual(['docs-a.txt', 'docs-b.txt']);
    expect(report.refused).toEqual([
      { filename: 'docs-c.txt', reason: 'no annotation row names it in truth.csv' },
      { filename: 'missing.txt', row: 3, reason: 'the annotation names no file of the folder' },
    ]);
    const run = await runCli([...flags, 'run', 'csv', '--model', 'local-rules'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const rows = (await runCli([...flags, 'export', 'csv', 'latest', '--format', 'jsonl'], { cwd: dir })).stdout.trim().split('\n').map((l) => JSON.parse(l));
    // The CSV cell "12.5" became the number 12.5 (the schema says number), and local-rules read 12.50 from the text.
    expect(rows.find((row) => row.filename === 'docs-a.txt' && row.field === 'total')).toMatchObject({ annotation: 12.5, prediction: 12.5, similarity: 1 });
  });
});

describe('run against a server without background jobs', () => {
  it('follows the synchronous answer (200) instead of an events stream, and prints the same summary', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docevals-cli-legacy-'));
    const server = await startServer(join(dir, 'store'), { legacy: true });
    try {
      const data = await writeDataset(dir, { text: 4, png: 1, pdf: 1 });
      const flags = ['--url', server.url, '--api-key', API_KEY];
      expect((await runCli([...flags, 'import', data.folder, '--schema', data.schema, '--annotations', data.annotations, '--name', 'old'], { cwd: dir })).code).toBe(0);
      const r = await runCli([...flags, 'run', 'old', '--model', 'local-rules'], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/completed eval_iter_\S+ \(local-rules\): 6\/6 succeeded, 0 failed/);
      expect(r.stdout).toContain('leaderboard: #1 of 1 | mean 1.000');
      expect(server.requests.some((q) => q.endsWith('/events'))).toBe(false);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
