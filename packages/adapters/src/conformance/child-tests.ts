import type { ChildCollection, ChildRecordBase, ChildTotals, PredictionRecord, Storage } from '@docevals/core';
import { expect, it } from 'vitest';
import { type ConformanceContext, rejection, tamper } from './context.js';
import { at, documentRecord, ORG_A, ORG_B, predictionRecord } from './fixtures.js';

const N = 50;

/** The sums of `totals` over `records`, as a child collection must report them. */
function expectedTotals(records: readonly ChildRecordBase[]): ChildTotals {
  const sums: Record<string, number> = {};
  for (const record of records) {
    for (const [key, value] of Object.entries(record.totals ?? {})) sums[key] = (sums[key] ?? 0) + value;
  }
  return { count: records.length, sums };
}

/** Totals equal to `expected` up to floating-point rounding; a key absent on one side counts as 0. */
export function expectTotals(actual: ChildTotals, expected: ChildTotals): void {
  expect(actual.count).toBe(expected.count);
  const keys = new Set([...Object.keys(actual.sums), ...Object.keys(expected.sums)]);
  for (const key of keys) {
    expect(actual.sums[key] ?? 0, `sums.${key}`).toBeCloseTo(expected.sums[key] ?? 0, 6);
  }
}

/** Reads every child of a parent through `list`, `pageSize` at a time. */
async function listAll<T extends ChildRecordBase>(collection: ChildCollection<T>, org: string, parent: string, pageSize = 7) {
  const all: T[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await collection.list(org, parent, { limit: pageSize, after });
    expect(page).not.toBeNull();
    all.push(...page!.items);
    if (!page!.has_more) return all;
    after = page!.items[page!.items.length - 1]!.id;
  }
}

const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);

/** Documents and predictions: child collections with insertion order, batches, compare-and-set and totals. */
export function childTests(ctx: ConformanceContext): void {
  for (const group of [insertAndPutTests, deleteAndReadTests, totalsTests, isolationTests]) group(ctx);
}

/** insertMany (in order, all or nothing, a thousand at once) and put's three modes. */
function insertAndPutTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('insertMany stores children at version 1 in the order given, after those already there', async () => {
    const { documents } = await ctx.open();
    const first = [documentRecord(ORG_A, 'eval_1', 'file_c', 3), documentRecord(ORG_A, 'eval_1', 'file_a', 1)];
    const stored = await documents.insertMany(first);
    expect(stored).toEqual(first.map((value) => ({ value, version: 1 })));
    await documents.insertMany([documentRecord(ORG_A, 'eval_1', 'file_b', 2)]);
    expect(ids(await listAll(documents, ORG_A, 'eval_1'))).toEqual(['file_c', 'file_a', 'file_b']);
    expect(await documents.get(ORG_A, 'eval_1', 'file_a')).toEqual({ value: first[1], version: 1 });
    expect(await documents.insertMany([])).toEqual([]);
  }, t);

  it('insertMany is all or nothing: an id the parent holds, or one id twice, is a conflict and writes nothing', async () => {
    const { documents } = await ctx.open();
    await documents.insertMany([documentRecord(ORG_A, 'eval_1', 'file_1', 10)]);
    const taken = await rejection(
      documents.insertMany([documentRecord(ORG_A, 'eval_1', 'file_2', 20), documentRecord(ORG_A, 'eval_1', 'file_1', 30)]),
    );
    expect(taken.code).toBe('conflict');
    const twice = await rejection(
      documents.insertMany([
        documentRecord(ORG_A, 'eval_1', 'file_3', 40),
        documentRecord(ORG_A, 'eval_1', 'file_4', 50),
        documentRecord(ORG_A, 'eval_1', 'file_3', 60),
      ]),
    );
    expect(twice.code).toBe('conflict');
    expect(ids(await listAll(documents, ORG_A, 'eval_1'))).toEqual(['file_1']);
    expect(await documents.getMany(ORG_A, 'eval_1', ['file_2', 'file_3', 'file_4'])).toEqual([null, null, null]);
    expectTotals(await documents.totals(ORG_A, 'eval_1'), { count: 1, sums: { size: 10 } });
    // The same id under another parent or another organization is another child.
    await documents.insertMany([documentRecord(ORG_A, 'eval_2', 'file_1', 1)]);
    await documents.insertMany([documentRecord(ORG_B, 'eval_1', 'file_1', 1)]);
    expect((await documents.get(ORG_A, 'eval_1', 'file_1'))!.value.size).toBe(10);
  }, t);

  it('insertMany of 1,000 children is one batch, read back in order, and counted exactly', async () => {
    const { documents } = await ctx.open();
    const many = Array.from({ length: 1000 }, (_, i) => documentRecord(ORG_A, 'eval_1', `file_${String(i).padStart(4, '0')}`, i));
    await documents.insertMany(many);
    expect(ids(await listAll(documents, ORG_A, 'eval_1', 100))).toEqual(ids(many));
    expectTotals(await documents.totals(ORG_A, 'eval_1'), expectedTotals(many));
  }, t);

  it('put with a version is a compare-and-set: it replaces the matching version only, keeping the place in order', async () => {
    const { predictions } = await ctx.open();
    await predictions.insertMany(['doc_a', 'doc_b', 'doc_c'].map((id) => predictionRecord(ORG_A, 'iter_1', id, 0.5)));
    const next = predictionRecord(ORG_A, 'iter_1', 'doc_a', 0.9);
    expect(await predictions.put(next, 2)).toBeNull();
    expect(await predictions.put(next, 1)).toEqual({ value: next, version: 2 });
    expect(await predictions.put(predictionRecord(ORG_A, 'iter_1', 'doc_a', 0.1), 1)).toBeNull();
    expect(await predictions.get(ORG_A, 'iter_1', 'doc_a')).toEqual({ value: next, version: 2 });
    // A version on an absent child: null, nothing written.
    expect(await predictions.put(predictionRecord(ORG_A, 'iter_1', 'doc_z'), 1)).toBeNull();
    expect(await predictions.get(ORG_A, 'iter_1', 'doc_z')).toBeNull();
    expect(ids(await listAll(predictions, ORG_A, 'iter_1'))).toEqual(['doc_a', 'doc_b', 'doc_c']);
  }, t);

  it('put with version 0 inserts only an absent child; put without a version inserts or replaces', async () => {
    const { predictions } = await ctx.open();
    const a = predictionRecord(ORG_A, 'iter_1', 'doc_a', 0.2);
    expect(await predictions.put(a, 0)).toEqual({ value: a, version: 1 });
    expect(await predictions.put(predictionRecord(ORG_A, 'iter_1', 'doc_a', 0.3), 0)).toBeNull();
    expect((await predictions.get(ORG_A, 'iter_1', 'doc_a'))!.value.metrics.similarity).toBe(0.2);
    const b = predictionRecord(ORG_A, 'iter_1', 'doc_b', 0.4);
    expect(await predictions.put(b)).toEqual({ value: b, version: 1 });
    const a2 = predictionRecord(ORG_A, 'iter_1', 'doc_a', 0.7, false);
    expect(await predictions.put(a2)).toEqual({ value: a2, version: 2 });
    expect(ids(await listAll(predictions, ORG_A, 'iter_1'))).toEqual(['doc_a', 'doc_b']);
    expectTotals(await predictions.totals(ORG_A, 'iter_1'), expectedTotals([a2, b]));
  }, t);
}

/** delete, deleteAll, paging and getMany. */
function deleteAndReadTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('delete removes one child (with a version: only that version); one inserted again goes last', async () => {
    const { documents } = await ctx.open();
    await documents.insertMany(['f1', 'f2', 'f3'].map((id, i) => documentRecord(ORG_A, 'eval_1', id, i + 1)));
    expect(await documents.delete(ORG_A, 'eval_1', 'f1', 2)).toBe(false);
    expect(await documents.get(ORG_A, 'eval_1', 'f1')).not.toBeNull();
    expect(await documents.delete(ORG_A, 'eval_1', 'f1', 1)).toBe(true);
    expect(await documents.delete(ORG_A, 'eval_1', 'f1')).toBe(false);
    expect(await documents.delete(ORG_B, 'eval_1', 'f2')).toBe(false);
    expect(await documents.delete(ORG_A, 'eval_2', 'f2')).toBe(false);
    expect(await documents.get(ORG_A, 'eval_1', 'f1')).toBeNull();
    expectTotals(await documents.totals(ORG_A, 'eval_1'), { count: 2, sums: { size: 5 } });
    await documents.put(documentRecord(ORG_A, 'eval_1', 'f1', 7), 0);
    expect(ids(await listAll(documents, ORG_A, 'eval_1'))).toEqual(['f2', 'f3', 'f1']);
    expect((await documents.get(ORG_A, 'eval_1', 'f1'))!.version).toBe(1);
    expect(await documents.delete(ORG_A, 'eval_1', 'f2')).toBe(true);
    expectTotals(await documents.totals(ORG_A, 'eval_1'), { count: 2, sums: { size: 10 } });
  }, t);

  it('deleteAll removes every child of one parent only, and answers how many there were', async () => {
    const { predictions } = await ctx.open();
    await predictions.insertMany(Array.from({ length: 30 }, (_, i) => predictionRecord(ORG_A, 'iter_1', `doc_${i}`, i / 30)));
    await predictions.insertMany([predictionRecord(ORG_A, 'iter_2', 'doc_0', 0.5)]);
    await predictions.insertMany([predictionRecord(ORG_B, 'iter_1', 'doc_0', 0.5)]);
    expect(await predictions.deleteAll(ORG_A, 'iter_1')).toBe(30);
    expect(await predictions.deleteAll(ORG_A, 'iter_1')).toBe(0);
    expect(await predictions.list(ORG_A, 'iter_1', { limit: 10 })).toEqual({ items: [], has_more: false });
    expect(await predictions.get(ORG_A, 'iter_1', 'doc_3')).toBeNull();
    expectTotals(await predictions.totals(ORG_A, 'iter_1'), { count: 0, sums: {} });
    expect((await predictions.totals(ORG_A, 'iter_2')).count).toBe(1);
    expect((await predictions.totals(ORG_B, 'iter_1')).count).toBe(1);
    // The parent can be filled again from scratch.
    await predictions.insertMany([predictionRecord(ORG_A, 'iter_1', 'doc_3', 0.25)]);
    expectTotals(await predictions.totals(ORG_A, 'iter_1'), expectedTotals([predictionRecord(ORG_A, 'iter_1', 'doc_3', 0.25)]));
  }, t);

  it('lists in pages: limit, has_more, after; null for a cursor the parent does not hold', async () => {
    const { documents } = await ctx.open();
    const all = Array.from({ length: 10 }, (_, i) => documentRecord(ORG_A, 'eval_1', `f${i}`, i));
    await documents.insertMany(all);
    const first = await documents.list(ORG_A, 'eval_1', { limit: 4 });
    expect(first).toEqual({ items: all.slice(0, 4), has_more: true });
    expect(await documents.list(ORG_A, 'eval_1', { limit: 4, after: 'f3' })).toEqual({ items: all.slice(4, 8), has_more: true });
    expect(await documents.list(ORG_A, 'eval_1', { limit: 4, after: 'f7' })).toEqual({ items: all.slice(8), has_more: false });
    expect(await documents.list(ORG_A, 'eval_1', { limit: 2, after: 'f9' })).toEqual({ items: [], has_more: false });
    expect(await documents.list(ORG_A, 'eval_1', { limit: 10 })).toEqual({ items: all, has_more: false });
    expect(await documents.list(ORG_A, 'eval_1', { limit: 0 })).toEqual({ items: [], has_more: true });
    expect(await documents.list(ORG_A, 'eval_1', { limit: 3, after: 'f_unknown' })).toBeNull();
    expect(await documents.list(ORG_B, 'eval_1', { limit: 3, after: 'f1' })).toBeNull();
    expect(await documents.list(ORG_A, 'eval_2', { limit: 3, after: 'f1' })).toBeNull();
    expect(await documents.list(ORG_A, 'eval_2', { limit: 3 })).toEqual({ items: [], has_more: false });
    // A cursor deleted meanwhile is unknown too.
    await documents.delete(ORG_A, 'eval_1', 'f3');
    expect(await documents.list(ORG_A, 'eval_1', { limit: 3, after: 'f3' })).toBeNull();
  }, t);

  it('getMany answers in the order asked, null for children the parent does not hold', async () => {
    const { predictions } = await ctx.open();
    await predictions.insertMany([predictionRecord(ORG_A, 'iter_1', 'd1'), predictionRecord(ORG_A, 'iter_1', 'd2')]);
    const got = await predictions.getMany(ORG_A, 'iter_1', ['d2', 'nope', 'd1', 'd2']);
    expect(got.map((g) => g && g.value.id)).toEqual(['d2', null, 'd1', 'd2']);
    expect(await predictions.getMany(ORG_B, 'iter_1', ['d1'])).toEqual([null]);
    expect(await predictions.getMany(ORG_A, 'iter_1', [])).toEqual([]);
  }, t);
}

/** Totals exact after every write and under concurrent writers; one winner among concurrent inserts. */
function totalsTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('keeps totals exact after every kind of write: insertMany, put (insert, replace), delete, deleteAll', async () => {
    const { predictions } = await ctx.open();
    const live = new Map<string, PredictionRecord>();
    const check = async () => expectTotals(await predictions.totals(ORG_A, 'iter_1'), expectedTotals([...live.values()]));
    await check();
    const batch = Array.from({ length: 20 }, (_, i) => predictionRecord(ORG_A, 'iter_1', `d${i}`, (i % 7) / 7, i % 5 !== 0));
    await predictions.insertMany(batch);
    for (const record of batch) live.set(record.id, record);
    await check();
    for (let i = 0; i < 20; i += 3) {
      const record = predictionRecord(ORG_A, 'iter_1', `d${i}`, 0.123 * (i % 4), i % 2 === 0);
      await predictions.put(record);
      live.set(record.id, record);
      await check();
    }
    const fresh = predictionRecord(ORG_A, 'iter_1', 'd_new', 0.77);
    await predictions.put(fresh, 0);
    live.set(fresh.id, fresh);
    await check();
    const versioned = predictionRecord(ORG_A, 'iter_1', 'd_new', 0.11, false);
    await predictions.put(versioned, 1);
    live.set(versioned.id, versioned);
    await check();
    // Refused writes change nothing.
    await predictions.put(predictionRecord(ORG_A, 'iter_1', 'd_new', 0.99), 1);
    await predictions.put(predictionRecord(ORG_A, 'iter_1', 'd1', 0.99), 0);
    await rejection(predictions.insertMany([predictionRecord(ORG_A, 'iter_1', 'd_x', 0.99), predictionRecord(ORG_A, 'iter_1', 'd2', 0.99)]));
    await check();
    for (const id of ['d4', 'd9', 'd_new']) {
      await predictions.delete(ORG_A, 'iter_1', id);
      live.delete(id);
      await check();
    }
    // A record without totals counts, and adds nothing.
    const bare = { ...predictionRecord(ORG_A, 'iter_1', 'bare') } as Partial<PredictionRecord>;
    delete bare.totals;
    await predictions.put(bare as PredictionRecord);
    live.set('bare', bare as PredictionRecord);
    await check();
    await predictions.deleteAll(ORG_A, 'iter_1');
    live.clear();
    await check();
  }, t);

  it(`keeps totals exact under ${N} concurrent puts from many writers: the sums equal the sums over the records`, async () => {
    const { predictions } = await ctx.open();
    await predictions.insertMany(Array.from({ length: 10 }, (_, i) => predictionRecord(ORG_A, 'iter_1', `d${i}`, 0.5)));
    await Promise.all(
      Array.from({ length: N }, async (_, w) => {
        const id = `d${w % 12}`; // two ids beyond the batch: upserted concurrently
        await predictions.put(predictionRecord(ORG_A, 'iter_1', id, ((w * 37) % 100) / 100, w % 3 !== 0));
        if (w % 10 === 9) await predictions.delete(ORG_A, 'iter_1', `d${(w + 1) % 12}`);
        // A compare-and-set writer that retries, as the service does.
        for (;;) {
          const current = await predictions.get(ORG_A, 'iter_1', `d${(w + 5) % 12}`);
          const next = predictionRecord(ORG_A, 'iter_1', `d${(w + 5) % 12}`, (w % 10) / 10);
          if (await predictions.put(next, current ? current.version : 0)) break;
        }
      }),
    );
    const records = await listAll(predictions, ORG_A, 'iter_1');
    expectTotals(await predictions.totals(ORG_A, 'iter_1'), expectedTotals(records));
  }, t);

  it(`lets exactly one of ${N} parallel puts with version 0 of one id win`, async () => {
    const { documents } = await ctx.open();
    const outcomes = await Promise.all(
      Array.from({ length: N }, (_, i) => documents.put(documentRecord(ORG_A, 'eval_1', 'f1', i), 0)),
    );
    expect(outcomes.filter((o) => o !== null)).toHaveLength(1);
    expectTotals(await documents.totals(ORG_A, 'eval_1'), { count: 1, sums: { size: outcomes.find((o) => o)!.value.size } });
  }, t);
}

/** Copies, and children scoped by organization and parent. */
function isolationTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('hands out copies: changing a given or returned child does not change the stored one', async () => {
    const { documents } = await ctx.open();
    const given = documentRecord(ORG_A, 'eval_1', 'f1', 5);
    await documents.insertMany([given]);
    given.annotation.total = 99;
    given.totals!.size = 99;
    const got = await documents.get(ORG_A, 'eval_1', 'f1');
    tamper(() => { got!.value.annotation.total = 98; });
    const page = await documents.list(ORG_A, 'eval_1', { limit: 1 });
    tamper(() => { page!.items[0]!.filename = 'changed'; });
    expect(await documents.get(ORG_A, 'eval_1', 'f1')).toEqual({ value: documentRecord(ORG_A, 'eval_1', 'f1', 5), version: 1 });
    expectTotals(await documents.totals(ORG_A, 'eval_1'), { count: 1, sums: { size: 5 } });
  }, t);

  it('scopes children by organization and parent: the same ids elsewhere are other children', async () => {
    const storage: Storage = await ctx.open();
    await storage.documents.insertMany([documentRecord(ORG_A, 'p', 'f1', 1), documentRecord(ORG_A, 'p', 'f2', 2)]);
    await storage.documents.insertMany([documentRecord(ORG_B, 'p', 'f1', 10)]);
    await storage.documents.insertMany([documentRecord(ORG_A, 'q', 'f1', 100)]);
    expect(await storage.documents.get(ORG_B, 'p', 'f2')).toBeNull();
    expectTotals(await storage.documents.totals(ORG_A, 'p'), { count: 2, sums: { size: 3 } });
    expectTotals(await storage.documents.totals(ORG_B, 'p'), { count: 1, sums: { size: 10 } });
    expectTotals(await storage.documents.totals(ORG_A, 'q'), { count: 1, sums: { size: 100 } });
    // Documents and predictions are separate collections.
    expect(await storage.predictions.get(ORG_A, 'p', 'f1')).toBeNull();
    expectTotals(await storage.predictions.totals(ORG_A, 'p'), { count: 0, sums: {} });
    const at1 = documentRecord(ORG_A, 'p', 'f1', 1, at(1));
    expect(at1.updated_at).not.toBe(documentRecord(ORG_A, 'p', 'f1', 1).updated_at);
  }, t);
}
