import { compareDocuments, type EvaluationRecord, type IterationRecord } from '@docevals/core';
import { redisStorage, type RedisStorage } from '@docevals/adapters/redis';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { documentRecord, evaluationRecord, iterationRecord, ORG_A, predictionRecord } from '../src/conformance/fixtures.js';
import { deleteKeys, uniqueKeyPrefix } from './support/redis-test-keys.js';

const url = inject('redisUrl');
const filePrefix = uniqueKeyPrefix('maintenance');
let n = 0;
const admin = new Redis(url);
const opened: RedisStorage[] = [];
const open = () => {
  const storage = redisStorage({ url, keyPrefix: `${filePrefix}${++n}:` });
  opened.push(storage);
  return storage;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await deleteKeys(admin, filePrefix);
  await admin.quit();
});

const LONG_AGO = '2020-01-01T00:00:00.000Z';

describe('redis: records written by the previous release', () => {
  it('are read in the old layout and rewritten on first read: documents, predictions with metrics and totals', async () => {
    const storage = open();
    await storage.files.retain(ORG_A, 'file_a', { bytes: Buffer.from('PDF-A'), mime_type: 'application/pdf' });
    // The previous release's records: the same hash layout, with documents and predictions inside.
    const { document_count: _, ...base } = evaluationRecord(ORG_A, 'eval_old');
    const legacyEvaluation = {
      ...base,
      iteration_ids: ['iter_old'],
      documents: [
        { id: 'file_a', filename: 'a.pdf', annotation: { total: 100 }, annotation_metadata: null, revision: 'rev_a' },
        { id: 'file_b', filename: 'b.pdf', annotation: { total: 5 }, annotation_metadata: null, revision: 'rev_b' },
      ],
    };
    const { status: _s, started_at: _st, finished_at: _f, error: _e, lease: _l, ...iterationBase } = iterationRecord(ORG_A, 'iter_old');
    const legacyIteration = {
      ...iterationBase,
      evaluation_id: 'eval_old',
      predictions: {
        file_a: { prediction: { total: 90 }, metadata: { api_cost: { value: 0.5, currency: 'USD' } } },
        file_b: { prediction: {}, metadata: { error: 'timeout' } },
      },
    };
    await storage.evaluations.insert(legacyEvaluation as unknown as EvaluationRecord);
    await storage.iterations.insert(legacyIteration as unknown as IterationRecord);

    // Reading the iteration first converts its evaluation first.
    const iteration = await storage.iterations.get(ORG_A, 'iter_old');
    expect(iteration!.version).toBe(2);
    expect(iteration!.value).not.toHaveProperty('predictions');
    expect(iteration!.value.status).toBe('completed');
    const evaluation = await storage.evaluations.get(ORG_A, 'eval_old');
    expect(evaluation!.value).not.toHaveProperty('documents');
    expect(evaluation!.value.document_count).toBe(2);
    const documents = await storage.documents.list(ORG_A, 'eval_old', { limit: 10 });
    expect(documents!.items.map((d) => [d.id, d.mime_type, d.size])).toEqual([['file_a', 'application/pdf', 5], ['file_b', 'application/octet-stream', 0]]);
    const predictions = await storage.predictions.list(ORG_A, 'iter_old', { limit: 10 });
    expect(predictions!.items.map((p) => [p.id, p.status])).toEqual([['file_a', 'succeeded'], ['file_b', 'failed']]);
    const expected = compareDocuments({ total: 100 }, { total: 90 });
    expect(predictions!.items[0]!.metrics).toEqual({ ...expected, annotation_revision: 'rev_a' });
    const totals = await storage.predictions.totals(ORG_A, 'iter_old');
    expect(totals.count).toBe(2);
    expect(totals.sums.succeeded).toBe(1);
    expect(totals.sums.failed).toBe(1);
    expect(totals.sums.cost).toBeCloseTo(0.5, 12);
    expect(totals.sums.similarity).toBeCloseTo(expected.similarity, 12);
    // Lists convert too, and a converted record is not converted again.
    const list = await storage.iterations.list(ORG_A, { limit: 10, order: 'asc' });
    expect(list!.items[0]).not.toHaveProperty('predictions');
    expect((await storage.iterations.get(ORG_A, 'iter_old'))!.version).toBe(2);
  });
});

describe('redis: sweep()', () => {
  it('reclaims orphans older than the grace period and leaves live records and recent ones alone', async () => {
    const storage = open();
    await storage.evaluations.insert({ ...evaluationRecord(ORG_A, 'eval_1'), iteration_ids: ['iter_listed'] });
    await storage.iterations.insert({ ...iterationRecord(ORG_A, 'iter_listed', LONG_AGO), evaluation_id: 'eval_1' });
    await storage.predictions.insertMany([predictionRecord(ORG_A, 'iter_listed', 'file_1', 0.5, true, LONG_AGO)]);
    await storage.documents.insertMany([documentRecord(ORG_A, 'eval_1', 'file_1', 1, LONG_AGO)]);
    await storage.files.retainMany(ORG_A, [
      { fileId: 'file_1', content: { bytes: Buffer.from('1'), mime_type: 'text/plain' } },
      { fileId: 'file_1' }, // a reference no document holds: a crash between retain and insert
      { fileId: 'file_leaked', content: { bytes: Buffer.from('2'), mime_type: 'text/plain' } },
    ]);
    // Orphans: an iteration never listed, with its predictions; documents of a deleted evaluation.
    await storage.iterations.insert({ ...iterationRecord(ORG_A, 'iter_unlisted', LONG_AGO), evaluation_id: 'eval_1' });
    await storage.predictions.insertMany([predictionRecord(ORG_A, 'iter_unlisted', 'file_1', 0.5, true, LONG_AGO)]);
    await storage.documents.insertMany([documentRecord(ORG_A, 'eval_gone', 'file_x', 1, LONG_AGO)]);
    // A recent unlisted iteration may be an operation under way on another server: kept.
    await storage.iterations.insert({ ...iterationRecord(ORG_A, 'iter_recent', new Date().toISOString()), evaluation_id: 'eval_1' });

    // The file references were taken just now: the default grace period keeps them.
    const first = await storage.sweep();
    expect(first).toEqual({ orphanIterations: 1, orphanChildren: 2, fileReferencesFixed: 0 });
    expect(await storage.iterations.get(ORG_A, 'iter_unlisted')).toBeNull();
    expect((await storage.predictions.totals(ORG_A, 'iter_unlisted')).count).toBe(0);
    expect(await storage.documents.get(ORG_A, 'eval_gone', 'file_x')).toBeNull();
    expect(await storage.iterations.get(ORG_A, 'iter_recent')).not.toBeNull();
    expect((await storage.predictions.totals(ORG_A, 'iter_listed')).count).toBe(1);

    await new Promise((r) => setTimeout(r, 10));
    const second = await storage.sweep({ olderThanMs: 1 });
    expect(second.fileReferencesFixed).toBe(2);
    expect(await storage.files.get(ORG_A, 'file_leaked')).toBeNull();
    // file_1 is held by one document: one reference left.
    await storage.files.release(ORG_A, 'file_1');
    expect(await storage.files.get(ORG_A, 'file_1')).toBeNull();
    expect(await storage.sweep({ olderThanMs: 1 })).toMatchObject({ orphanChildren: 0, fileReferencesFixed: 0 });
  });

  it('reclaims the job events of an iteration that is gone, and keeps those of a live one', async () => {
    const storage = open();
    const event = (parent: string, id: string) => ({
      id,
      organization_id: ORG_A,
      parent_id: parent,
      job_id: 'job_1',
      type: 'document' as const,
      document_id: id.split('.')[1]!,
      similarity: 1,
      error: null,
      summary: null,
      created_at: LONG_AGO,
      updated_at: LONG_AGO,
    });
    await storage.evaluations.insert({ ...evaluationRecord(ORG_A, 'eval_1'), iteration_ids: ['iter_live'] });
    await storage.iterations.insert({ ...iterationRecord(ORG_A, 'iter_live', LONG_AGO), evaluation_id: 'eval_1' });
    await storage.events.insertMany([event('iter_live', 'job_1.a'), event('iter_live', 'job_1.b')]);
    await storage.events.insertMany([event('iter_gone', 'job_1.a'), event('iter_gone', 'job_1.b'), event('iter_gone', 'job_1.c')]);
    expect((await storage.sweep()).orphanChildren).toBe(3);
    expect((await storage.events.list(ORG_A, 'iter_gone', { limit: 10 }))!.items).toEqual([]);
    expect((await storage.events.list(ORG_A, 'iter_live', { limit: 10 }))!.items).toHaveLength(2);
  });
});
