/**
 * Fair scheduling between organizations (docs/spec/jobs.md, Fair scheduling) in the in-process runner: one
 * organization's backlog delays another's first document by at most one call per slot, and the cap on queued and
 * running iterations per organization answers `rate_limited` with a retry delay before anything is written.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { DocevalsError, type Docevals, type Extractor } from '../../src/index.js';
import { FairSlots } from '../../src/service/jobs/fair-slots.js';
import { dataUrl, invoiceSchema, makeService, ORG, OTHER_ORG } from './fixtures.js';

/** Answers each document after `ms`, recording the order calls start in (`org:filename`). */
function loggingExtractor(ms: number) {
  const started: string[] = [];
  const extractor: Extractor = {
    name: 'logging',
    models: ['logging'],
    async extract({ document }) {
      started.push(document.filename);
      await new Promise((r) => setTimeout(r, ms));
      return { data: JSON.parse(Buffer.from(document.bytes).toString('utf8')) };
    },
  };
  return { extractor, started };
}

async function evaluationOf(docevals: Docevals, org: string, count: number) {
  return docevals.evals.create(org, {
    name: `${org} invoices`,
    json_schema: invoiceSchema,
    default_inference_settings: { model: 'logging' },
    documents: Array.from({ length: count }, (_, i) => ({
      mime_data: { filename: `${org}-${i}.json`, url: dataUrl(JSON.stringify({ vendor: org, total: i })) },
      annotation: { vendor: org, total: i },
    })),
  });
}

async function waitFor(docevals: Docevals, org: string, evaluationId: string, iterationId: string) {
  for (;;) {
    const it = await docevals.evals.iterations.get(org, { evaluation_id: evaluationId, iteration_id: iterationId, view: 'summary' });
    if (it.status === 'completed' || it.status === 'failed') return it;
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('fair scheduling, in process', () => {
  it("B's first document starts after at most one call per slot of A's backlog; B completes within 2x its idle time", async () => {
    const slots = 2 * 2; // maxRunningIterations x extraction.concurrency
    const options = (extractor: Extractor) => ({
      extractors: [extractor],
      extraction: { concurrency: 2 },
      jobs: { maxRunningIterations: 2, maxIterationsPerOrganization: 20 },
    });
    // B alone: its idle time.
    const idle = loggingExtractor(20);
    const alone = makeService(options(idle.extractor));
    const aloneEval = await evaluationOf(alone, OTHER_ORG, 2);
    const aloneStart = performance.now();
    const aloneRun = await alone.evals.iterations.create(OTHER_ORG, { evaluation_id: aloneEval.id, background: true });
    await waitFor(alone, OTHER_ORG, aloneEval.id, aloneRun.id);
    const idleMs = performance.now() - aloneStart;
    await alone.close();

    const busy = loggingExtractor(20);
    const docevals = makeService(options(busy.extractor));
    const a = await evaluationOf(docevals, ORG, 10);
    const b = await evaluationOf(docevals, OTHER_ORG, 2);
    for (let i = 0; i < 20; i++) await docevals.evals.iterations.create(ORG, { evaluation_id: a.id, background: true });
    // A's 21st is refused: nothing written, a delay to retry after.
    const refused = await docevals.evals.iterations.create(ORG, { evaluation_id: a.id, background: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DocevalsError);
    expect((refused as DocevalsError).code).toBe('rate_limited');
    expect((refused as DocevalsError).retry_after).toBeGreaterThan(0);
    expect((await docevals.evals.iterations.list(ORG, { evaluation_id: a.id, view: 'summary' })).data).toHaveLength(20);
    // A's backlog is running: then B.
    while (busy.started.length < slots) await new Promise((r) => setTimeout(r, 2));
    const before = busy.started.length;
    const bStart = performance.now();
    const run = await docevals.evals.iterations.create(OTHER_ORG, { evaluation_id: b.id, background: true });
    const done = await waitFor(docevals, OTHER_ORG, b.id, run.id);
    const busyMs = performance.now() - bStart;
    expect(done.status).toBe('completed');
    const firstB = busy.started.findIndex((name) => name.startsWith(OTHER_ORG));
    // Calls of A that started between B's create and B's first call: at most one per slot.
    expect(firstB - before).toBeLessThanOrEqual(slots);
    const slack = Number(process.env.DOCEVALS_TEST_SLACK ?? 2);
    console.log(`[fair] B alone ${Math.round(idleMs)} ms, beside A's 20 iterations ${Math.round(busyMs)} ms`);
    expect(busyMs).toBeLessThanOrEqual(2 * idleMs * slack);
    await docevals.close();
  });

  it('the cap counts queued and running iterations per organization: another organization is not refused', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const extractor: Extractor = { name: 'held', models: ['logging'], extract: async () => (await gate, { data: {} }) };
    const docevals = makeService({ extractors: [extractor], jobs: { maxIterationsPerOrganization: 2 } });
    const a = await evaluationOf(docevals, ORG, 1);
    const b = await evaluationOf(docevals, OTHER_ORG, 1);
    const first = await docevals.evals.iterations.create(ORG, { evaluation_id: a.id, background: true });
    await docevals.evals.iterations.create(ORG, { evaluation_id: a.id, background: true });
    await expect(docevals.evals.iterations.create(ORG, { evaluation_id: a.id, background: true })).rejects.toMatchObject({ code: 'rate_limited' });
    await docevals.evals.iterations.create(OTHER_ORG, { evaluation_id: b.id, background: true });
    // Once one ends, A may start another.
    await docevals.evals.iterations.cancel(ORG, { evaluation_id: a.id, iteration_id: first.id });
    await docevals.evals.iterations.create(ORG, { evaluation_id: a.id, background: true });
    release();
    await docevals.close();
  });
});

describe('FairSlots', () => {
  it('gives freed slots to the keys in turn, first come first served within a key', async () => {
    const slots = new FairSlots(1);
    const order: string[] = [];
    const releases: Array<() => void> = [];
    const task = (key: string, name: string) =>
      slots.run(key, () => {
        order.push(name);
        return new Promise<void>((r) => releases.push(r));
      });
    const all = [task('a', 'a1'), task('a', 'a2'), task('a', 'a3'), task('b', 'b1'), task('b', 'b2'), task('c', 'c1')];
    while (order.length < 6) {
      await new Promise((r) => setTimeout(r, 0));
      releases.shift()?.();
    }
    releases.shift()?.();
    await Promise.all(all);
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2']);
  });

  it('a waiter whose signal aborts leaves the queue and runs at once without a slot', async () => {
    const slots = new FairSlots(1);
    let release!: () => void;
    const holding = slots.run('a', () => new Promise<void>((r) => (release = r)));
    const controller = new AbortController();
    const waiting = slots.run('b', async () => 'ran', controller.signal);
    expect(slots.queued).toBe(1);
    controller.abort();
    expect(await waiting).toBe('ran');
    expect(slots.queued).toBe(0);
    release();
    await holding;
  });

  it('a re-run and an update count in the cap; refused, the iteration is left as it was (status, settings)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const extractor: Extractor = { name: 'held', models: ['logging'], extract: async () => (await gate, { data: {} }) };
    const docevals = makeService({ extractors: [extractor], jobs: { maxIterationsPerOrganization: 2 } });
    const a = await evaluationOf(docevals, ORG, 1);
    const first = await docevals.evals.iterations.create(ORG, { evaluation_id: a.id, background: true });
    await docevals.evals.iterations.create(ORG, { evaluation_id: a.id, background: true });
    await docevals.evals.iterations.cancel(ORG, { evaluation_id: a.id, iteration_id: first.id });
    // The cap is full again without `first`: its re-run is refused by the cap alone (it is not active).
    await docevals.evals.iterations.create(ORG, { evaluation_id: a.id, background: true });
    const ref = { evaluation_id: a.id, iteration_id: first.id };
    const before = await docevals.evals.iterations.get(ORG, { ...ref, view: 'summary' });
    expect(before.status).toBe('cancelled');
    await expect(docevals.evals.iterations.process(ORG, { ...ref, background: true })).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(docevals.evals.iterations.update(ORG, { ...ref, inference_settings: { temperature: 0.7 } })).rejects.toMatchObject({ code: 'rate_limited' });
    const after = await docevals.evals.iterations.get(ORG, { ...ref, view: 'summary' });
    expect(after.status).toBe('cancelled');
    expect(after.inference_settings).toEqual(before.inference_settings);
    release();
    await docevals.close();
  });
});
