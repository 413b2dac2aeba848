import { describe, expect, it } from 'vitest';
import { storageError, type Storage } from '@docevals/core';
import { memoryStorage } from '../support/memory-storage.js';
import { createInvoices, invoiceDocument, makeService, ORG } from './fixtures.js';

/**
 * An evaluation created with imported iterations writes them side by side; one failing write must leave nothing:
 * no evaluation, no iteration, no document, no prediction, no file reference, and the others' writes all undone.
 */
describe('evals.create with imported iterations, one of whose writes fails', () => {
  it('rejects with the failure and leaves the store as it was', async () => {
    const storage: Storage = memoryStorage();
    let calls = 0;
    const parents: string[] = [];
    const insertMany = storage.predictions.insertMany.bind(storage.predictions);
    storage.predictions.insertMany = async (records) => {
      parents.push(records[0]!.parent_id);
      const call = ++calls;
      // The second iteration's batch fails at once; the third lands well after that failure.
      if (call === 2) throw storageError('memory', 'predictions.insertMany', new Error('disk full'));
      if (call === 3) await new Promise((resolve) => setTimeout(resolve, 30));
      return insertMany(records);
    };
    const docevals = makeService({ storage });
    const documents = ['a.json', 'b.json'].map((name, i) => invoiceDocument(name, { vendor: `V${i}`, total: i }, { vendor: `V${i}`, total: i }));
    const iteration = (model: string) => ({ inference_settings: { model }, predictions: [{ prediction: { total: 1 } }, { prediction: { total: 2 } }] });

    await expect(createInvoices(docevals, { id: 'eval_undo', documents, iterations: ['json-file', 'json-file-b', 'json-file-c'].map(iteration) })).rejects.toMatchObject({
      code: 'storage_error',
    });
    expect(calls).toBe(3); // every iteration's write was tried, and each was over before the undo
    await new Promise((resolve) => setTimeout(resolve, 60)); // a write still under way would land by now
    for (const parent of parents) expect((await storage.predictions.totals(ORG, parent)).count).toBe(0);

    expect(await storage.evaluations.get(ORG, 'eval_undo')).toBeNull();
    expect((await storage.iterations.list(ORG, { limit: 100, order: 'asc' }))?.items ?? []).toEqual([]);
    expect((await storage.documents.totals(ORG, 'eval_undo')).count).toBe(0);
    // The files the documents referenced are released: a new evaluation of the same files is their only holder.
    const again = await createInvoices(docevals, { documents });
    expect(again.documents).toHaveLength(2);
    await docevals.evals.delete(ORG, { evaluation_id: again.id });
    for (const d of again.documents) expect(await storage.files.get(ORG, d.id)).toBeNull();
  });
});
