/**
 * The queue mode in one process (the multi-process acceptance runs in apps/server/test/workers.test.ts):
 * an API-side service with the BullMQ runner and workers from createDocevalsWorker on one real Redis and one store,
 * against a loopback OpenAI-compatible server with latency that counts calls per document and in flight.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { redisStorage } from '@docevals/adapters/redis';
import { createDocevals, type Docevals } from '@docevals/core';
import { openaiExtractor } from '@docevals/openai';
import { bullmqJobRunner, createDocevalsWorker, parseModelLimits, type DocevalsWorker } from '@docevals/bullmq';
import { invoiceDocuments, invoiceModel, SCHEMA, until } from '../../../test-support/invoice-model.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ORG = 'org_queue';

async function fleet(options: { workers: number; limit?: number; latencyMs?: number; concurrency?: number }) {
  const url = inject('redisUrl');
  const keyPrefix = `bq${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}:`;
  const prefix = `${keyPrefix}bull`;
  const model = await invoiceModel(options.latencyMs ?? 20);
  cleanups.push(() => model.fake.stop());
  const extractors = () => [openaiExtractor({ apiKey: 'sk-test', baseURL: model.fake.baseURL, models: ['*'] })];
  const limits = options.limit ? { '*': { concurrency: options.limit } } : undefined;
  const lines: string[] = [];
  const api: Docevals = createDocevals({
    storage: redisStorage({ url, keyPrefix }),
    extractors: extractors(),
    jobs: { runner: bullmqJobRunner({ connection: url, prefix, ...(limits ? { limits } : {}), log: (l) => lines.push(l) }) },
  });
  cleanups.push(() => api.close());
  const workers: DocevalsWorker[] = [];
  const startWorker = async () => {
    const worker = await createDocevalsWorker({
      storage: redisStorage({ url, keyPrefix }),
      extractors: extractors(),
      connection: url,
      prefix,
      concurrency: options.concurrency ?? 8,
      lockMs: 2_000,
      discoverMs: 100,
      log: (l) => lines.push(l),
    });
    workers.push(worker);
    cleanups.push(() => worker.close());
    return worker;
  };
  for (let i = 0; i < options.workers; i++) await startWorker();
  return { api, model, workers, startWorker, lines };
}

async function evaluation(api: Docevals, count: number) {
  return api.evals.create(ORG, { name: 'queue', json_schema: SCHEMA, documents: invoiceDocuments(count), default_inference_settings: { model: 'gpt-4o-mini' } });
}

describe('queue mode (BullMQ)', () => {
  it('runs every document once across workers, under the fleet-wide limit, and records the outcome once', async () => {
    const { api, model, lines } = await fleet({ workers: 2, limit: 4 });
    const created = await evaluation(api, 60);
    const iteration = await api.evals.iterations.create(ORG, { evaluation_id: created.id, background: true });
    await until(async () => (await api.evals.iterations.get(ORG, { evaluation_id: created.id, iteration_id: iteration.id, view: 'summary' })).status === 'completed', 30_000, 'completed');
    const summary = await api.evals.iterations.get(ORG, { evaluation_id: created.id, iteration_id: iteration.id, view: 'summary' });
    expect(summary.progress).toEqual({ total: 60, succeeded: 60, failed: 0, pending: 0 });
    for (let n = 0; n < 60; n++) expect(model.started.get(n)).toBe(1);
    expect(model.fake.maxInFlight).toBeLessThanOrEqual(4);
    expect(model.fake.maxInFlight).toBeGreaterThanOrEqual(2);
    // One final event.
    const events = [];
    for await (const event of api.evals.iterations.events(ORG, { evaluation_id: created.id, iteration_id: iteration.id })) events.push(event);
    expect(events.at(-1)?.type).toBe('completed');
    // A batch's lines are logged after its last step records the outcome: the iteration can read as completed a moment
    // before the worker's last lines are written.
    const succeededLines = () => lines.filter((l) => l.startsWith('[docevals/worker]') && / succeeded \d+ ms/.test(l));
    await until(async () => succeededLines().length >= 60, 10_000, 'the worker logged every document');
    expect(succeededLines()).toHaveLength(60);
    const stats = (await api.jobStats()) as any;
    expect(stats.workers).toBe(2);
    expect(stats.models['gpt-4o-mini']).toMatchObject({ depth: 0, running: 0, completed: 60, failed: 0 });
  });

  it('with no worker the iteration stays queued and the stats say no worker is connected', async () => {
    const { api, startWorker, lines } = await fleet({ workers: 0 });
    const created = await evaluation(api, 5);
    const iteration = await api.evals.iterations.create(ORG, { evaluation_id: created.id, background: true });
    await new Promise((r) => setTimeout(r, 500));
    expect((await api.evals.iterations.get(ORG, { evaluation_id: created.id, iteration_id: iteration.id, view: 'summary' })).status).toBe('queued');
    expect(await api.jobStats()).toMatchObject({ workers: 0, plans: { depth: 1 } });
    expect(lines.some((l) => l.includes('no worker is connected'))).toBe(true);
    await startWorker();
    await until(async () => (await api.evals.iterations.get(ORG, { evaluation_id: created.id, iteration_id: iteration.id, view: 'summary' })).status === 'completed', 30_000, 'completed once a worker started');
  });

  it('cancel: queued documents removed, no call starts after it, finished ones kept', async () => {
    const { api, model } = await fleet({ workers: 2, limit: 4, latencyMs: 50 });
    const created = await evaluation(api, 200);
    const iteration = await api.evals.iterations.create(ORG, { evaluation_id: created.id, background: true });
    await until(() => [...model.answered.values()].length >= 20, 30_000, '20 answers');
    const summary = await api.evals.iterations.cancel(ORG, { evaluation_id: created.id, iteration_id: iteration.id });
    const callsAtCancel = [...model.started.values()].reduce((a, b) => a + b, 0);
    expect(summary.status).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 500));
    expect([...model.started.values()].reduce((a, b) => a + b, 0)).toBe(callsAtCancel);
    const stats = (await api.jobStats()) as any;
    expect(stats.models['gpt-4o-mini'].depth).toBe(0);
    const after = await api.evals.iterations.get(ORG, { evaluation_id: created.id, iteration_id: iteration.id, view: 'summary' });
    expect(after.status).toBe('cancelled');
    expect(after.progress.succeeded).toBeGreaterThanOrEqual(20);
    expect(after.progress.succeeded).toBeLessThan(200);
    // only_missing completes it later, without calling a finished document again.
    await api.evals.iterations.process(ORG, { evaluation_id: created.id, iteration_id: iteration.id, only_missing: true, background: true });
    await until(async () => (await api.evals.iterations.get(ORG, { evaluation_id: created.id, iteration_id: iteration.id, view: 'summary' })).status === 'completed', 30_000, 'completed');
    const done = await api.evals.iterations.get(ORG, { evaluation_id: created.id, iteration_id: iteration.id, view: 'summary' });
    expect(done.progress).toEqual({ total: 200, succeeded: 200, failed: 0, pending: 0 });
    // Beyond one call per document, only the calls in flight at the cancel (aborted, not saved) were made again.
    expect([...model.started.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(200 + 4);
  });

  it('provider down: each document recorded failed with the reason, the iteration failed with it, counted per model', async () => {
    const { api, model } = await fleet({ workers: 1 });
    model.state.down = true;
    const created = await evaluation(api, 6);
    const iteration = await api.evals.iterations.create(ORG, { evaluation_id: created.id, background: true });
    const summary = () => api.evals.iterations.get(ORG, { evaluation_id: created.id, iteration_id: iteration.id, view: 'summary' });
    await until(async () => (await summary()).status === 'failed', 30_000, 'failed');
    const failed = await summary();
    expect(failed.error).toMatch(/the provider is down/);
    expect(failed.progress).toEqual({ total: 6, succeeded: 0, failed: 6, pending: 0 });
    expect(((await api.jobStats()) as any).models['gpt-4o-mini']).toMatchObject({ completed: 0, failed: 6 });
  });

  it('reads fleet limits from one string and refuses a wrong one', () => {
    expect(parseModelLimits('gpt-4o=8/20, *=16')).toEqual({ 'gpt-4o': { concurrency: 8, perSecond: 20 }, '*': { concurrency: 16 } });
    expect(() => parseModelLimits('gpt-4o=0')).toThrow(/DOCEVALS_MODEL_LIMITS must look like/);
    expect(() => parseModelLimits('gpt-4o')).toThrow(/received "gpt-4o"/);
    expect(() => parseModelLimits('a=1,a=2')).toThrow(/twice/);
  });
});
