/**
 * Fair scheduling in queue mode (docs/workers.md, Fair turns): one organization's backlog of iterations on BullMQ
 * does not hold another organization's iteration behind it. Real Redis, a worker from createDocevalsWorker, a
 * loopback OpenAI-compatible model with latency that counts calls per invoice number.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { redisStorage } from '@docevals/adapters/redis';
import { createDocevals, type Docevals } from '@docevals/core';
import { openaiExtractor } from '@docevals/openai';
import { bullmqJobRunner, createDocevalsWorker } from '@docevals/bullmq';
import { invoiceDocuments, invoiceModel, SCHEMA, until } from '../../../test-support/invoice-model.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const A = 'org_busy';
const B = 'org_small';
const SLACK = Number(process.env.DOCEVALS_TEST_SLACK ?? 2);

describe('fair turns between organizations (BullMQ)', () => {
  it("B's iteration beside A's 20 queued ones: B's first call after a few of A's, B done within 2x its idle time; A's 21st is 429", async () => {
    const url = inject('redisUrl');
    const keyPrefix = `fair${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}:`;
    const prefix = `${keyPrefix}bull`;
    const model = await invoiceModel(20);
    cleanups.push(() => model.fake.stop());
    const order: number[] = [];
    const handle = model.fake.handle;
    // A's calls wait here until A's 20 iterations are all queued (none may end before the 21st is tried).
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    let holding = false;
    model.fake.handle = async (request, index) => {
      const n = Number(/INV-(\d+)/.exec(JSON.stringify(request.body))?.[1] ?? -1);
      if (holding && n < 1000) await hold;
      order.push(n);
      return handle(request, index);
    };
    const extractors = () => [openaiExtractor({ apiKey: 'sk-test', baseURL: model.fake.baseURL, models: ['*'] })];
    const api: Docevals = createDocevals({
      storage: redisStorage({ url, keyPrefix }),
      extractors: extractors(),
      jobs: { runner: bullmqJobRunner({ connection: url, prefix, limits: { '*': { concurrency: 4 } }, log: () => undefined }) },
    });
    cleanups.push(() => api.close());
    const worker = await createDocevalsWorker({
      storage: redisStorage({ url, keyPrefix }),
      extractors: extractors(),
      connection: url,
      prefix,
      concurrency: 4,
      lockMs: 5_000,
      discoverMs: 100,
      log: () => undefined,
    });
    cleanups.push(() => worker.close());

    const create = (org: string, documents: ReturnType<typeof invoiceDocuments>) =>
      api.evals.create(org, { name: org, json_schema: SCHEMA, documents, default_inference_settings: { model: 'gpt-4o-mini' } });
    const a = await create(A, invoiceDocuments(30));
    const b = await create(B, invoiceDocuments(1002).slice(1000)); // invoices 1000 and 1001: B's calls
    const runB = async () => {
      const started = performance.now();
      const run = await api.evals.iterations.create(B, { evaluation_id: b.id, background: true });
      await until(async () => (await api.evals.iterations.get(B, { evaluation_id: b.id, iteration_id: run.id, view: 'summary' })).status === 'completed', 60_000, "B's iteration");
      return performance.now() - started;
    };
    await runB(); // the first run opens the model's queue on the worker: not idle time
    const idleMs = await runB();

    holding = true;
    for (let i = 0; i < 20; i++) await api.evals.iterations.create(A, { evaluation_id: a.id, background: true });
    await expect(api.evals.iterations.create(A, { evaluation_id: a.id, background: true })).rejects.toMatchObject({ code: 'rate_limited', retry_after: 5 });
    release();
    await until(() => order.filter((n) => n < 1000).length >= 20, 60_000, "A's backlog running");
    const before = order.length;
    const busyMs = await runB();
    const firstB = order.findIndex((n, i) => i >= before && n >= 1000);
    const aCallsFirst = firstB - before;
    const aLeft = 600 - order.filter((n) => n < 1000).length;
    console.log(`[fair-queue] B alone ${Math.round(idleMs)} ms, beside A's backlog ${Math.round(busyMs)} ms; A calls before B's first: ${aCallsFirst}; A's calls still to run: ${aLeft}`);
    // A's backlog is still there when B is done (B did not just wait for it to end)...
    expect(aLeft).toBeGreaterThan(100);
    // ...and B's first call came after a few rounds of A's calls (4 slots): those in flight and those made while B's
    // plan ran, not A's whole backlog of ~580 (what FIFO queues gave).
    expect(aCallsFirst).toBeLessThanOrEqual(60);
    expect(busyMs).toBeLessThanOrEqual(2 * idleMs * SLACK);
  });
});
