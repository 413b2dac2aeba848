/**
 * Issue 31: a job that no runner has taken before (its iteration `queued`) has written nothing, so it starts without
 * reading the iteration's predictions; a job over the `missing` documents still reads them to skip the good ones.
 * Store calls are counted through a wrapper over a real memory store.
 */
import { describe, expect, it } from 'vitest';
import { countingStorage } from '../../../../test-support/counting-storage.js';
import { createDocevals } from '../../src/index.js';
import { memoryStorage } from '../support/memory-storage.js';
import { createInvoices, invoiceDocument, jsonFileExtractor, ORG } from './fixtures.js';

async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 400 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('a job starting', () => {
  it('reads no prediction when it is fresh, and reads them for only_missing', async () => {
    const storage = countingStorage(memoryStorage());
    const calls: string[] = [];
    const inner = jsonFileExtractor({ calls });
    // The prediction reads made by the time each extraction starts (the job's start is before the first).
    const readsAtCall: number[] = [];
    const extractor = { ...inner, extract: (request: Parameters<typeof inner.extract>[0]) => {
      readsAtCall.push(storage.calls.get('predictions.getMany') ?? 0);
      return inner.extract(request);
    } };
    const docevals = createDocevals({ storage, extractors: [extractor], extraction: { backoffBaseMs: 1, backoffMaxMs: 2 } });
    const documents = ['a.json', 'b.json', 'c.json'].map((name, i) => invoiceDocument(name, { vendor: 'V', total: i }, { vendor: 'V', total: i }));
    const evaluation = await createInvoices(docevals, { documents });
    const done = async (id: string) =>
      (await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: id })).status === 'completed';

    const first = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    const before = readsAtCall.length === 0 ? (storage.calls.get('predictions.getMany') ?? 0) : -1;
    await until(() => done(first.id));
    expect(calls).toHaveLength(3);
    expect(before).toBeGreaterThanOrEqual(0); // the job had not started when the create answered
    expect(readsAtCall[0]).toBe(before);

    // One document's prediction is removed: a re-run of the missing ones reads the others' to skip them.
    await storage.predictions.delete(ORG, first.id, evaluation.documents[1]!.id);
    const reads = storage.calls.get('predictions.getMany') ?? 0;
    await docevals.evals.iterations.process(ORG, { evaluation_id: evaluation.id, iteration_id: first.id, only_missing: true, background: true });
    await until(async () => calls.length === 4 && (await done(first.id)));
    expect(calls[3]).toBe('b.json'); // only the missing one
    expect(readsAtCall[3]).toBeGreaterThan(reads);
  });
});

describe('a run of more documents than one chunk (64)', () => {
  it("starts the next chunk's calls while a slow document of the previous one is still out, never more than the concurrency at once", async () => {
    let inFlight = 0;
    let most = 0;
    let laterStarted!: () => void;
    const later = new Promise<void>((resolve) => (laterStarted = resolve));
    let slowOverFirst = false;
    const extractor = {
      name: 'timed',
      models: ['timed'],
      async extract({ document }: { document: { filename: string; bytes: Uint8Array } }) {
        inFlight++;
        most = Math.max(most, inFlight);
        const index = Number(/\d+/.exec(document.filename)![0]);
        if (index >= 64) laterStarted();
        // The chunk's first document is out until a document of the next chunk has started (or 2 s have passed).
        if (index === 0) slowOverFirst = await Promise.race([later.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 2_000))]);
        else await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
        return { data: JSON.parse(Buffer.from(document.bytes).toString('utf8')) };
      },
    };
    const docevals = createDocevals({ storage: memoryStorage(), extractors: [extractor], extraction: { concurrency: 4, backoffBaseMs: 1, backoffMaxMs: 2 } });
    const documents = Array.from({ length: 70 }, (_, i) => invoiceDocument(`d${i}.json`, { vendor: 'V', total: i }, { vendor: 'V', total: i }));
    const evaluation = await createInvoices(docevals, { documents, default_inference_settings: { model: 'timed' } });
    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    expect(iteration.status).toBe('completed');
    expect(slowOverFirst).toBe(false); // the next chunk did not wait for it
    expect(most).toBeLessThanOrEqual(4);
  });
});

describe('model calls first', () => {
  it.each([false, true])("sends the next call before a finished document's metrics and writes (background %s)", async (background) => {
    const steps: string[] = [];
    const storage = memoryStorage();
    const recording: typeof storage = {
      ...storage,
      predictions: new Proxy(storage.predictions, {
        get: (target, name) => {
          const method = Reflect.get(target, name) as unknown;
          if (typeof method !== 'function' || !['put', 'putMany', 'insertMany'].includes(String(name))) return method;
          return (...args: unknown[]) => {
            steps.push('prediction written');
            return (method as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }),
    };
    const extractor = {
      name: 'hops',
      models: ['hops'],
      async extract({ document }: { document: { filename: string; bytes: Uint8Array } }) {
        // An HTTP client's awaits before its request is written (the OpenAI SDK has a dozen).
        for (let hop = 0; hop < 20; hop++) await Promise.resolve();
        steps.push(`call ${document.filename}`);
        return { data: JSON.parse(Buffer.from(document.bytes).toString('utf8')) };
      },
    };
    const docevals = createDocevals({ storage: recording, extractors: [extractor], extraction: { concurrency: 1 } });
    const documents = ['a.json', 'b.json', 'c.json'].map((name, i) => invoiceDocument(name, { vendor: 'V', total: i }, { vendor: 'V', total: i }));
    const evaluation = await createInvoices(docevals, { documents, default_inference_settings: { model: 'hops' } });
    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background });
    await until(async () => (await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id })).status === 'completed');
    // One slot: the first document's prediction is written after the second document's request is out.
    expect(steps.indexOf('call b.json')).toBeGreaterThanOrEqual(0);
    expect(steps.indexOf('call b.json')).toBeLessThan(steps.indexOf('prediction written'));
    expect(steps.filter((s) => s.startsWith('call'))).toEqual(['call a.json', 'call b.json', 'call c.json']);
    await docevals.close();
  });
});
