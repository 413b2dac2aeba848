/**
 * Resume after a crash (issue 14): the standalone server run as a process (`tsx src/server.ts`), killed with SIGKILL
 * mid-iteration, on lowdb and on Redis; and two servers on one Redis, one killed, the other taking over once the
 * lease expires. The model is an OpenAI-compatible server on loopback that counts calls per document.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { apiClient } from './support/api-client.js';
import { invoiceDocuments, invoiceModel, SCHEMA, until } from './support/jobs-support.js';

const KEY = 'crash-key';
const cwd = fileURLToPath(new URL('..', import.meta.url));
const SLACK = Number(process.env.DOCEVALS_TEST_SLACK ?? 2);
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Running {
  url: string;
  child: ChildProcess;
  output: () => string;
}

async function startServer(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DOCEVALS_CONCURRENCY: '4', DOCEVALS_LEASE_MS: '1500', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${output}`)), 30_000);
    const look = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', () => reject(new Error(`exited: ${output}`)));
  });
  return { url, child, output: () => output };
}

async function kill(server: Running): Promise<void> {
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGKILL');
  await exited;
}

/** Document ids with a saved prediction, by their invoice number (from the file name). */
async function savedInvoices(api: ReturnType<typeof apiClient>, evaluationId: string, iterationId: string, names: Map<string, number>) {
  const page = await api('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}/predictions?limit=1000`);
  return page.body.data.filter((p: { status: string }) => p.status === 'succeeded').map((p: { document_id: string }) => names.get(p.document_id)!);
}

async function crashAndResume(env: Record<string, string>) {
  const model = await invoiceModel(30);
  cleanups.push(() => model.fake.stop());
  const organization = `org_crash_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const base = { ...env, DOCEVALS_API_KEYS: `${KEY}:${organization}`, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.fake.baseURL };

  const first = await startServer(base);
  const api = apiClient(first.url, KEY);
  const created = await api('POST', '/v1/evals', {
    name: 'crash',
    json_schema: SCHEMA,
    documents: invoiceDocuments(120),
    default_inference_settings: { model: 'gpt-4o-mini' },
  });
  expect(created.status).toBe(200);
  const evaluationId = created.body.id as string;
  const names = new Map<string, number>(created.body.documents.map((d: { id: string; mime_data: { filename: string } }) => [d.id, Number(/inv-(\d+)/.exec(d.mime_data.filename)![1])]));
  const accepted = await api('POST', `/v1/evals/${evaluationId}/iterations/create`, { background: true });
  expect(accepted.status).toBe(202);
  const iterationId = accepted.body.id as string;

  await until(async () => (await savedInvoices(api, evaluationId, iterationId, names)).length >= 30, 20_000, '30 saved predictions');
  const finishedBeforeKill: number[] = await savedInvoices(api, evaluationId, iterationId, names);
  await kill(first);
  const callsAtKill = new Map(model.started);

  const second = await startServer(base);
  const again = apiClient(second.url, KEY);
  await until(
    async () => (await again('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}?view=summary`)).body.status === 'completed',
    30_000,
    'the resumed iteration to complete',
  );
  const summary = (await again('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}?view=summary`)).body;
  expect(summary.progress).toEqual({ total: 120, succeeded: 120, failed: 0, pending: 0 });
  expect(finishedBeforeKill.length).toBeGreaterThanOrEqual(30);
  expect(finishedBeforeKill.length).toBeLessThan(120);
  // No document whose prediction was saved before the kill was called again after it.
  for (const n of finishedBeforeKill) expect(model.started.get(n)).toBe(callsAtKill.get(n));
  for (const n of finishedBeforeKill) expect(model.started.get(n)).toBe(1);
  for (let n = 0; n < 120; n++) expect(model.started.get(n) ?? 0).toBeGreaterThanOrEqual(1);
}

describe('resume after kill -9 of the standalone server', () => {
  it('on lowdb: the restarted server completes the iteration without calling a finished document again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'docevals-crash-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    await crashAndResume({ DATA_DIR: dataDir });
  }, 90_000);

  it('on Redis: the same', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'docevals-crash-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    await crashAndResume({ DATA_DIR: dataDir, REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: `crash${Date.now().toString(36)}:` });
  }, 90_000);

  it('two servers on one Redis: when the one running the iteration is killed, the other takes over after the lease', async () => {
    const model = await invoiceModel(30);
    cleanups.push(() => model.fake.stop());
    const organization = `org_pair_${Date.now().toString(36)}`;
    const dataDir = await mkdtemp(join(tmpdir(), 'docevals-pair-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = {
      DATA_DIR: dataDir,
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: `pair${Date.now().toString(36)}:`,
      DOCEVALS_API_KEYS: `${KEY}:${organization}`,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.fake.baseURL,
      // The default lease (6 s, renewed every 2 s, expired leases looked for every 2 s): the takeover time is checked.
      DOCEVALS_LEASE_MS: '',
    };
    const [a, b] = [await startServer(env), await startServer(env)];
    let killedAt = 0;
    let firstStartAfterKill = 0;
    const handle = model.fake.handle;
    model.fake.handle = (request, index) => {
      if (killedAt > 0 && firstStartAfterKill === 0) firstStartAfterKill = Date.now();
      return handle(request, index);
    };
    const viaA = apiClient(a.url, KEY);
    const viaB = apiClient(b.url, KEY);
    const created = await viaA('POST', '/v1/evals', {
      name: 'pair',
      json_schema: SCHEMA,
      documents: invoiceDocuments(120),
      default_inference_settings: { model: 'gpt-4o-mini' },
    });
    const evaluationId = created.body.id as string;
    const names = new Map<string, number>(created.body.documents.map((d: { id: string; mime_data: { filename: string } }) => [d.id, Number(/inv-(\d+)/.exec(d.mime_data.filename)![1])]));
    const accepted = await viaA('POST', `/v1/evals/${evaluationId}/iterations/create`, { background: true });
    const iterationId = accepted.body.id as string;
    await until(async () => (await savedInvoices(viaB, evaluationId, iterationId, names)).length >= 30, 20_000, '30 saved predictions');
    const finishedBeforeKill: number[] = await savedInvoices(viaB, evaluationId, iterationId, names);
    await kill(a);
    killedAt = Date.now();

    await until(
      async () => (await viaB('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}?view=summary`)).body.status === 'completed',
      60_000,
      'server B to complete the iteration',
    );
    const takeoverMs = firstStartAfterKill - killedAt;
    console.log(`[jobs-crash] server B's first call ${takeoverMs} ms after the kill of A`);
    // B waited for A's lease to expire (6 s, renewed every 2 s: at least 4 s left at the kill) before taking over,
    // and took over within 8 s (issue 31 asks <= 10 s; it was 31 s with the 30 s lease).
    expect(takeoverMs).toBeGreaterThanOrEqual(3_000);
    expect(takeoverMs).toBeLessThan(10_000 * SLACK);
    const page = await viaB('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}/predictions?limit=1000`);
    expect(page.body.data).toHaveLength(120);
    expect(new Set(page.body.data.map((p: { document_id: string }) => p.document_id)).size).toBe(120);
    expect(page.body.data.every((p: { status: string }) => p.status === 'succeeded')).toBe(true);
    for (const n of finishedBeforeKill) expect(model.started.get(n)).toBe(1);
    // Exactly one server ran it at a time: beyond one call per document, only the calls A had in flight (4) repeat.
    const calls = [...model.started.values()].reduce((x, y) => x + y, 0);
    expect(calls).toBeLessThanOrEqual(124);
  }, 90_000);
});
