import { memoryStorage } from '../support/memory-storage.js';
import { describe, expect, it } from 'vitest';
import { JOBS_SCOPE, type Extractor, type IterationEvent } from '../../src/internal.js';
import { invoiceDocument, invoiceSchema, makeService, ORG } from './fixtures.js';

/** An extractor that records each call's signal and answers after `delayMs` unless aborted (then it rejects). */
function slowExtractor(delayMs: number) {
  const signals: AbortSignal[] = [];
  const extractor: Extractor = {
    name: 'slow',
    models: ['slow'],
    extract({ document, signal }) {
      signals.push(signal);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ data: JSON.parse(Buffer.from(document.bytes).toString('utf8')) }), delayMs);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    },
  };
  return { extractor, signals };
}

const documents = (n: number) => Array.from({ length: n }, (_, i) => invoiceDocument(`d${i}.json`, { total: i }, { total: i }));

async function evaluationWith(docevals: ReturnType<typeof makeService>, n: number, model = 'slow') {
  return docevals.evals.create(ORG, { name: 'jobs', json_schema: invoiceSchema, default_inference_settings: { model }, documents: documents(n) });
}

async function collect(events: AsyncIterable<IterationEvent>, stop?: (e: IterationEvent, all: IterationEvent[]) => boolean) {
  const all: IterationEvent[] = [];
  for await (const event of events) {
    all.push(event);
    if (stop?.(event, all)) break;
  }
  return all;
}

describe('iterations as jobs, in-process', () => {
  it('cancel aborts the calls in flight through their signal and starts no other', async () => {
    const { extractor, signals } = slowExtractor(10_000);
    const docevals = makeService({ extractors: [extractor], extraction: { concurrency: 3 } });
    const evaluation = await evaluationWith(docevals, 10);
    const accepted = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    while (signals.length < 3) await new Promise((r) => setTimeout(r, 1));
    const cancelled = await docevals.evals.iterations.cancel(ORG, { evaluation_id: evaluation.id, iteration_id: accepted.id });
    expect(cancelled.status).toBe('cancelled');
    expect(signals.every((s) => s.aborted)).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(signals).toHaveLength(3);
    expect(cancelled.progress).toEqual({ total: 10, succeeded: 0, failed: 0, pending: 10 });
    // Cancelling again answers the iteration as it is.
    expect((await docevals.evals.iterations.cancel(ORG, { evaluation_id: evaluation.id, iteration_id: accepted.id })).status).toBe('cancelled');
    await docevals.close();
  });

  it('saves predictions by group commit: fewer batches than documents, every one stored, totals exact', async () => {
    const storage = memoryStorage();
    const sizes: number[] = [];
    const putMany = storage.predictions.putMany.bind(storage.predictions);
    storage.predictions.putMany = async (entries) => {
      sizes.push(entries.length);
      await new Promise((r) => setTimeout(r, 15)); // a slow store: documents finishing meanwhile join the next batch
      return putMany(entries);
    };
    const { extractor } = slowExtractor(5);
    const docevals = makeService({ storage, extractors: [extractor], extraction: { concurrency: 8 } });
    const evaluation = await evaluationWith(docevals, 120);
    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    expect(iteration.status).toBe('completed');
    expect(iteration.progress).toEqual({ total: 120, succeeded: 120, failed: 0, pending: 0 });
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(120);
    expect(sizes.length).toBeLessThan(60);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(iteration.metric_results.mean_similarity).toBe(1);
    await docevals.close();
  });

  it('settles each group-commit batch against its documents with one read, not one read per prediction', async () => {
    const storage = memoryStorage();
    const batches: number[] = [];
    const reads: number[] = [];
    const putMany = storage.predictions.putMany.bind(storage.predictions);
    storage.predictions.putMany = async (entries) => {
      batches.push(entries.length);
      await new Promise((r) => setTimeout(r, 15)); // a slow store: batches of several predictions
      return putMany(entries);
    };
    const getMany = storage.documents.getMany.bind(storage.documents);
    storage.documents.getMany = async (org, parent, ids) => {
      reads.push(ids.length);
      return getMany(org, parent, ids);
    };
    const { extractor } = slowExtractor(5);
    const docevals = makeService({ storage, extractors: [extractor], extraction: { concurrency: 8 } });
    const evaluation = await evaluationWith(docevals, 120);
    reads.length = 0;
    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    expect(iteration.progress.succeeded).toBe(120);
    // Every saved prediction's document is read once after its batch's write, and a batch's documents in one read.
    const settles = reads.slice(-batches.length);
    expect(settles).toEqual(batches);
    expect(reads.filter((n) => n === 1).length).toBeLessThan(60);
    await docevals.close();
  });

  it('a store that fails while predictions are saved ends the job failed with that error; the saved ones are kept', async () => {
    const storage = memoryStorage();
    let calls = 0;
    const putMany = storage.predictions.putMany.bind(storage.predictions);
    storage.predictions.putMany = async (entries) => {
      if (++calls > 3) throw Object.assign(new Error('The memory storage failed during predictions.putMany (EIO).'), { code: 'storage_error' });
      return putMany(entries);
    };
    const { extractor } = slowExtractor(2);
    const docevals = makeService({ storage, extractors: [extractor], extraction: { concurrency: 4 } });
    const evaluation = await evaluationWith(docevals, 200);
    const accepted = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    const events = await collect(docevals.evals.iterations.events(ORG, { evaluation_id: evaluation.id, iteration_id: accepted.id }));
    expect(events.at(-1)!.type).toBe('failed');
    const final = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: accepted.id, view: 'summary' });
    expect(final.status).toBe('failed');
    expect(final.error).toMatch(/EIO/);
    const saved = (await storage.predictions.totals(ORG, accepted.id)).count;
    expect(saved).toBeGreaterThan(0);
    expect(saved).toBeLessThan(200);
    expect(final.progress.succeeded).toBe(saved);
    await docevals.close();
  });

  it('runs at most maxRunningIterations at once; the others wait their turn in order', async () => {
    const { extractor } = slowExtractor(30);
    const docevals = makeService({ extractors: [extractor], jobs: { maxRunningIterations: 1 } });
    const evaluation = await evaluationWith(docevals, 3);
    const first = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    const second = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    expect(second.status).toBe('queued');
    const ref = (id: string) => ({ evaluation_id: evaluation.id, iteration_id: id, view: 'summary' as const });
    // While the first runs, the second stays queued.
    while ((await docevals.evals.iterations.get(ORG, ref(first.id))).status !== 'completed') {
      expect((await docevals.evals.iterations.get(ORG, ref(second.id))).status).toBe('queued');
      await new Promise((r) => setTimeout(r, 5));
    }
    await collect(docevals.evals.iterations.events(ORG, { evaluation_id: evaluation.id, iteration_id: second.id }));
    const done = await docevals.evals.iterations.get(ORG, ref(second.id));
    expect(done.status).toBe('completed');
    expect(done.started_at! >= (await docevals.evals.iterations.get(ORG, ref(first.id))).finished_at!).toBe(true);
    await docevals.close();
  });

  it('events: one per document, progress after them, the final one with the summary; last_event_id resumes', async () => {
    const { extractor } = slowExtractor(5);
    const docevals = makeService({ extractors: [extractor] });
    const evaluation = await evaluationWith(docevals, 12);
    const accepted = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    const ref = { evaluation_id: evaluation.id, iteration_id: accepted.id };
    const head = await collect(docevals.evals.iterations.events(ORG, ref), (_, all) => all.filter((e) => e.type === 'document').length === 5);
    const tail = await collect(docevals.evals.iterations.events(ORG, { ...ref, last_event_id: head[head.length - 1]!.id }));
    const docs = [...head, ...tail].filter((e) => e.type === 'document');
    expect(docs).toHaveLength(12);
    expect(new Set(docs.map((e) => e.id)).size).toBe(12);
    const final = tail[tail.length - 1]!;
    expect(final.type).toBe('completed');
    if (final.type === 'completed') expect(final.data.progress).toEqual({ total: 12, succeeded: 12, failed: 0, pending: 0 });
    // After the final event there is nothing more (no wait, no replay).
    expect(await collect(docevals.evals.iterations.events(ORG, { ...ref, last_event_id: final.id }))).toEqual([]);
    const progress = tail.filter((e) => e.type === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    // An unknown organization or iteration: not found, before any event.
    await expect(collect(docevals.evals.iterations.events('org_other', ref))).rejects.toMatchObject({ code: 'not_found' });
    // No organization, or the runners' reserved scope: refused like every operation.
    await expect(collect(docevals.evals.iterations.events('', ref))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(docevals.evals.list(JOBS_SCOPE)).rejects.toMatchObject({ code: 'unauthorized' });
    await docevals.close();
  });

  it('a second service on the same store resumes an iteration whose runner stopped renewing its lease', async () => {
    const storage = memoryStorage();
    // The first service's extractor never answers: its process "died" mid-iteration after two documents.
    let answered = 0;
    const stuck: Extractor = {
      name: 'stuck',
      models: ['slow'],
      async extract({ document }) {
        if (answered >= 2) return new Promise(() => {});
        answered++;
        return { data: JSON.parse(Buffer.from(document.bytes).toString('utf8')) };
      },
    };
    // The first service writes through a view of the store that goes silent when its process "dies".
    const dead = { now: false };
    const silent = {
      ...storage,
      iterations: {
        ...storage.iterations,
        replace: (record: Parameters<typeof storage.iterations.replace>[0], version: number) =>
          dead.now ? Promise.resolve(null) : storage.iterations.replace(record, version),
      },
    };
    const first = makeService({ storage: silent, extractors: [stuck], extraction: { concurrency: 1 }, jobs: { leaseMs: 300 } });
    const evaluation = await evaluationWith(first, 6);
    const accepted = await first.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    while (answered < 2) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 20));
    dead.now = true;
    const { extractor, signals } = slowExtractor(1);
    const second = makeService({ storage, extractors: [extractor], jobs: { leaseMs: 300 } });
    const events = await collect(second.evals.iterations.events(ORG, { evaluation_id: evaluation.id, iteration_id: accepted.id }));
    expect(events[events.length - 1]!.type).toBe('completed');
    // Only the documents the first service had not finished were extracted again.
    expect(signals.length).toBe(4);
    expect(events.filter((e) => e.type === 'document')).toHaveLength(6);
  });
});
