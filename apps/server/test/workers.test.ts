/**
 * Distributed extraction on BullMQ (issue 17), with real OS processes: the standalone API server started with
 * DOCEVALS_QUEUE=bullmq and worker processes (`src/worker.ts`, what `pnpm worker` runs) on the real redis-server the
 * tests start, against a loopback OpenAI-compatible server with 20 ms latency that counts calls per document and in
 * flight. The fleet-wide limit is DOCEVALS_MODEL_LIMITS.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { apiClient } from './support/api-client.js';
import { invoiceDocuments, invoiceModel, SCHEMA, until } from './support/jobs-support.js';
import { spawnScript, type Spawned } from './support/processes.js';

const KEY = 'workers-key';
const SLACK = Number(process.env.DOCEVALS_TEST_SLACK ?? 2);
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fleet(options: { workers: number; latencyMs?: number; limits?: string }) {
  const model = await invoiceModel(options.latencyMs ?? 20);
  cleanups.push(() => model.fake.stop());
  const dataDir = await mkdtemp(join(tmpdir(), 'docevals-workers-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const env = {
    DATA_DIR: dataDir,
    REDIS_URL: inject('redisUrl'),
    REDIS_KEY_PREFIX: `workers${tag}:`,
    DOCEVALS_API_KEYS: `${KEY}:org_${tag}`,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: model.fake.baseURL,
    DOCEVALS_QUEUE: 'bullmq',
    DOCEVALS_MODEL_LIMITS: options.limits ?? '*=8',
    // BullMQ's locks at their default (5 s): the kill test below checks the recovery time they give.
    WORKER_CONCURRENCY: '8',
  };
  const start = async (script: string, pattern: RegExp) => {
    const spawned = await spawnScript(script, { ...env, PORT: '0', HOST: '127.0.0.1' }, pattern);
    cleanups.push(spawned.kill);
    return spawned;
  };
  const server = await start('src/server.ts', /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const workers: Spawned[] = await Promise.all(Array.from({ length: options.workers }, () => start('src/worker.ts', /docevals worker ready/)));
  const api = apiClient(server.ready[1]!, KEY);
  const summary = async (evaluationId: string, iterationId: string) =>
    (await api('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}?view=summary`)).body;
  return { model, server, workers, api, summary, start, url: server.ready[1]! };
}

async function evaluation(api: ReturnType<typeof apiClient>, count: number) {
  const created = await api('POST', '/v1/evals', {
    name: 'workers',
    json_schema: SCHEMA,
    documents: invoiceDocuments(count),
    default_inference_settings: { model: 'gpt-4o-mini' },
  });
  expect(created.status).toBe(200);
  const names = new Map<string, number>(
    created.body.documents.map((d: { id: string; mime_data: { filename: string } }) => [d.id, Number(/inv-(\d+)/.exec(d.mime_data.filename)![1])]),
  );
  return { id: created.body.id as string, names };
}

const sum = (counts: Map<number, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

describe('BullMQ workers as separate processes', () => {
  it('1 API server + 3 workers, 300 documents: each extracted once, never more than 8 in flight, within the time bound', async () => {
    const { model, workers, api, summary } = await fleet({ workers: 3 });
    const { id } = await evaluation(api, 300);
    const started = performance.now();
    const accepted = await api('POST', `/v1/evals/${id}/iterations/create`, { background: true });
    expect(accepted.status).toBe(202);
    const iterationId = accepted.body.id as string;
    await until(async () => (await summary(id, iterationId)).status === 'completed', 60_000, 'the iteration to complete');
    const wallMs = performance.now() - started;
    const boundMs = (1.25 * 300 * 20) / 8;
    console.log(`[workers] 300 documents, 3 workers, fleet limit 8, 20 ms calls: ${Math.round(wallMs)} ms (ideal bound 1.25 x 750 = ${boundMs} ms); peak in flight ${model.fake.maxInFlight}`);
    expect((await summary(id, iterationId)).progress).toEqual({ total: 300, succeeded: 300, failed: 0, pending: 0 });
    for (let n = 0; n < 300; n++) expect(model.started.get(n)).toBe(1);
    expect(model.fake.maxInFlight).toBeLessThanOrEqual(8);
    expect(model.fake.maxInFlight).toBeGreaterThanOrEqual(4);
    // The precise figure belongs in `pnpm bench bullmq`; this bound catches a stall.
    expect(wallMs).toBeLessThan(boundMs * 8 * SLACK);
    // The workers logged one JSON line per document with its duration, 300 in all (the share of each is BullMQ's race).
    const documentLine = (l: string) => {
      if (!l.startsWith('{')) return false;
      const record = JSON.parse(l) as { msg: string; outcome?: string; duration_ms?: number; iteration_id?: string };
      return /^\[docevals\/worker\] gpt-4o-mini \S+ \S+ succeeded \d+ ms/.test(record.msg) && record.outcome === 'succeeded' && record.iteration_id === iterationId;
    };
    const lines = workers.map((w) => w.output().split('\n').filter(documentLine).length);
    console.log(`[workers] documents per worker: ${lines.join(', ')}`);
    expect(lines.reduce((a, b) => a + b, 0)).toBe(300);
  }, 180_000);

  it('kill -9 of one worker mid-run: the iteration completes, no document missing or recorded twice', async () => {
    const { model, workers, api, summary } = await fleet({ workers: 3, latencyMs: 40 });
    const { id } = await evaluation(api, 300);
    const iterationId = (await api('POST', `/v1/evals/${id}/iterations/create`, { background: true })).body.id as string;
    // When each call started, per invoice: a document called a second time after the kill is one the killed worker
    // had in flight, so its second start is when the killed worker's batches were back at work. The last start is an
    // upper bound (the other workers run the rest of the queue meanwhile).
    let lastStart = 0;
    const starts = new Map<number, number[]>();
    const handle = model.fake.handle;
    model.fake.handle = (request, index) => {
      lastStart = performance.now();
      const n = Number(/INV-(\d+)/.exec(JSON.stringify(request.body))?.[1] ?? -1);
      starts.set(n, [...(starts.get(n) ?? []), lastStart]);
      return handle(request, index);
    };
    // The worker to kill has documents of its own in flight (on a loaded machine it may join after the others).
    await until(() => sum(model.answered) >= 60 && /succeeded \d+ ms/.test(workers[0]!.output()), 60_000, '60 answers, some by the first worker');
    await workers[0]!.kill();
    const killedAt = performance.now();
    await until(async () => (await summary(id, iterationId)).status === 'completed', 90_000, 'the iteration to complete');
    const completedMs = performance.now() - killedAt;
    const repeated = [...starts.values()].filter((times) => times.length > 1).map((times) => times[1]! - killedAt);
    expect((await summary(id, iterationId)).progress).toEqual({ total: 300, succeeded: 300, failed: 0, pending: 0 });
    // A document called twice is one the killed worker had in flight: its second start is when the killed worker's
    // batches were back at work. On a loaded machine the worker can be killed between two calls (nothing in flight:
    // its held batches' next documents are then started once, by the others, after the lock): no second start to
    // time in that run, which is said, and the exactly-once checks below still hold.
    if (repeated.length === 0) {
      console.log(`[workers] kill -9 of a worker between its calls: nothing called twice; iteration completed after ${Math.round(completedMs)} ms`);
    } else {
      const recoveryMs = Math.min(...repeated);
      console.log(
        `[workers] kill -9 of a worker: its in-flight documents called again ${Math.round(recoveryMs)} ms after it (${repeated.length} documents), ` +
          `last call started ${Math.round(lastStart - killedAt)} ms after it, iteration completed after ${Math.round(completedMs)} ms`,
      );
      // The killed worker's batches go back to work within 7.5 s (5 s locks, a stalled check every 2.5 s; issue 31
      // asks <= 10 s). Was 49-53 s with 30 s locks. The slack is the load's; the lock is the bound.
      expect(recoveryMs).toBeLessThan(10_000 * SLACK);
      // ... and not before the lock expired (at least the lock less a renewal period, 3.75 s): a live worker's is kept.
      expect(recoveryMs).toBeGreaterThanOrEqual(3_000);
    }
    const page = await api('GET', `/v1/evals/${id}/iterations/${iterationId}/predictions?limit=1000`);
    expect(page.body.data).toHaveLength(300);
    expect(new Set(page.body.data.map((p: { document_id: string }) => p.document_id)).size).toBe(300);
    for (let n = 0; n < 300; n++) expect(model.started.get(n) ?? 0).toBeGreaterThanOrEqual(1);
    // Only the documents the killed worker held (at most its 8 in flight, within the fleet's 8) were called again.
    expect(sum(model.started)).toBeLessThanOrEqual(308);
  }, 180_000);

  it('cancel mid-run: queued documents removed (depth 0), no new call starts after the answer', async () => {
    const { model, api, summary, url } = await fleet({ workers: 2, latencyMs: 40 });
    const { id } = await evaluation(api, 300);
    const iterationId = (await api('POST', `/v1/evals/${id}/iterations/create`, { background: true })).body.id as string;
    await until(() => sum(model.answered) >= 50, 60_000, '50 answers');
    const cancelled = await api('POST', `/v1/evals/${id}/iterations/${iterationId}/cancel`);
    const callsAtCancel = sum(model.started);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 1_000));
    expect(sum(model.started)).toBe(callsAtCancel);
    const health = await fetch(`${url}/health?detail=true`, { headers: { 'api-key': KEY } });
    const detail = (await health.json()) as any;
    // The fleet's totals, without model names (they could be another organization's).
    expect(detail.jobs.fleet).toMatchObject({ depth: 0, running: 0, workers: 2 });
    const after = await summary(id, iterationId);
    expect(after.status).toBe('cancelled');
    expect(after.progress.succeeded).toBeGreaterThanOrEqual(40);
    expect(after.progress.pending).toBeGreaterThan(0);
  }, 180_000);

  it('no worker running: the iteration stays queued, and the health detail (behind the key) says no worker is connected', async () => {
    const { api, summary, url, server } = await fleet({ workers: 0 });
    const { id } = await evaluation(api, 5);
    const iterationId = (await api('POST', `/v1/evals/${id}/iterations/create`, { background: true })).body.id as string;
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await summary(id, iterationId)).status).toBe('queued');
    expect((await fetch(`${url}/health?detail=true`)).status).toBe(401);
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
    const detail = (await (await fetch(`${url}/health?detail=true`, { headers: { 'api-key': KEY } })).json()) as any;
    expect(detail.jobs).toMatchObject({ runner: 'bullmq', fleet: { workers: 0, plans: { depth: 1, running: 0 } }, organization: { queued: 1, running: 0 } });
    expect(server.output()).toContain(`no worker is connected to the queue: iteration ${iterationId} stays queued`);
  }, 120_000);
});
