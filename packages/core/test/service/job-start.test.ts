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
