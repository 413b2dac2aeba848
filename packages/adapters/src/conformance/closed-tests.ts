import type { Storage } from '@docevals/core';
import { expect, it } from 'vitest';
import { type ConformanceContext, rejection } from './context.js';
import { documentRecord, evaluationRecord, ORG_A, predictionRecord } from './fixtures.js';

/**
 * What `close()` means in every adapter: it is idempotent, and afterwards every call rejects with a
 * `storage_error` whose message says the store is closed (never a hang, never a silent answer from stale state).
 */
export function closedTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('rejects every call after close() with a storage_error that says so', async () => {
    const storage: Storage = await ctx.open();
    await storage.evaluations.insert(evaluationRecord(ORG_A, 'eval_1'));
    await storage.documents.insertMany([documentRecord(ORG_A, 'eval_1', 'f1')]);
    await storage.files.retain(ORG_A, 'f1', { bytes: Uint8Array.from([1]), mime_type: 'application/pdf' });
    await storage.close();
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['evaluations.get', () => storage.evaluations.get(ORG_A, 'eval_1')],
      ['evaluations.getMany', () => storage.evaluations.getMany(ORG_A, ['eval_1'])],
      ['evaluations.insert', () => storage.evaluations.insert(evaluationRecord(ORG_A, 'eval_2'))],
      ['evaluations.replace', () => storage.evaluations.replace(evaluationRecord(ORG_A, 'eval_1'), 1)],
      ['evaluations.delete', () => storage.evaluations.delete(ORG_A, 'eval_1')],
      ['evaluations.list', () => storage.evaluations.list(ORG_A, { limit: 1, order: 'asc' })],
      ['iterations.get', () => storage.iterations.get(ORG_A, 'iter_1')],
      ['processors.list', () => storage.processors.list(ORG_A, { limit: 1, order: 'asc' })],
      ['documents.get', () => storage.documents.get(ORG_A, 'eval_1', 'f1')],
      ['documents.getMany', () => storage.documents.getMany(ORG_A, 'eval_1', ['f1'])],
      ['documents.insertMany', () => storage.documents.insertMany([documentRecord(ORG_A, 'eval_1', 'f2')])],
      ['documents.put', () => storage.documents.put(documentRecord(ORG_A, 'eval_1', 'f1'))],
      ['documents.putMany', () => storage.documents.putMany([{ record: documentRecord(ORG_A, 'eval_1', 'f1'), expectedVersion: 1 }])],
      ['predictions.putMany', () => storage.predictions.putMany([{ record: predictionRecord(ORG_A, 'iter_1', 'f1') }])],
      ['documents.delete', () => storage.documents.delete(ORG_A, 'eval_1', 'f1')],
      ['documents.deleteAll', () => storage.documents.deleteAll(ORG_A, 'eval_1')],
      ['documents.list', () => storage.documents.list(ORG_A, 'eval_1', { limit: 1 })],
      ['documents.totals', () => storage.documents.totals(ORG_A, 'eval_1')],
      ['predictions.put', () => storage.predictions.put(predictionRecord(ORG_A, 'iter_1', 'f1'))],
      ['files.get', () => storage.files.get(ORG_A, 'f1')],
      ['files.getMany', () => storage.files.getMany!(ORG_A, ['f1'])],
      ['files.retain', () => storage.files.retain(ORG_A, 'f1')],
      ['files.release', () => storage.files.release(ORG_A, 'f1')],
      ['files.retainMany', () => storage.files.retainMany(ORG_A, [{ fileId: 'f1' }])],
      ['files.releaseMany', () => storage.files.releaseMany(ORG_A, ['f1'])],
    ];
    for (const [name, call] of calls) {
      const error = await rejection(call());
      expect(error.code, name).toBe('storage_error');
      expect(error.message, name).toMatch(/closed/i);
    }
    await expect(storage.close()).resolves.toBeUndefined();
  }, t);
}
