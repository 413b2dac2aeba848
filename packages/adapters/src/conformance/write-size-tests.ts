import { expect, it } from 'vitest';
import type { ConformanceContext } from './context.js';
import { documentRecord, evaluationRecord, ORG_A, predictionRecord } from './fixtures.js';

/**
 * A write touches records of bounded size: writing one prediction of an iteration that holds 1,000 costs about one
 * prediction's bytes, not the iteration's. Runs when the adapter reports what it writes (`writtenBytes`).
 */
export function writeSizeTests(ctx: ConformanceContext): void {
  const measure = ctx.writtenBytes;
  if (!measure) return;
  const t = ctx.timeout;

  it('writes one prediction, one document, one evaluation with bytes that do not grow with 1,000 siblings', async () => {
    const storage = await ctx.open();
    const one = Buffer.byteLength(JSON.stringify(predictionRecord(ORG_A, 'iter_1', 'doc_0500', 0.25)));
    await storage.evaluations.insert(evaluationRecord(ORG_A, 'eval_1'));
    await storage.predictions.insertMany(
      Array.from({ length: 1000 }, (_, i) => predictionRecord(ORG_A, 'iter_1', `doc_${String(i).padStart(4, '0')}`, 0.5)),
    );
    await storage.documents.insertMany(
      Array.from({ length: 1000 }, (_, i) => documentRecord(ORG_A, 'eval_1', `doc_${String(i).padStart(4, '0')}`, i)),
    );
    // Bounded: a few times one record (an adapter may write an index entry or a journal line beside it), far
    // below the 1,000 records of the parent.
    const bound = 20 * one;

    let before = measure(storage);
    await storage.predictions.put(predictionRecord(ORG_A, 'iter_1', 'doc_0500', 0.25));
    const putBytes = measure(storage) - before;
    expect(putBytes).toBeGreaterThan(0);
    expect(putBytes).toBeLessThan(bound);

    before = measure(storage);
    await storage.documents.put(documentRecord(ORG_A, 'eval_1', 'doc_0500', 1), 1);
    expect(measure(storage) - before).toBeLessThan(bound);

    before = measure(storage);
    await storage.predictions.delete(ORG_A, 'iter_1', 'doc_0001');
    expect(measure(storage) - before).toBeLessThan(bound);

    before = measure(storage);
    await storage.evaluations.replace({ ...evaluationRecord(ORG_A, 'eval_1'), document_count: 1000 }, 1);
    expect(measure(storage) - before).toBeLessThan(bound);
  }, t);
}
