import type { ChildPut, DocumentRecord, Storage } from '@docevals/core';
import { expect, it } from 'vitest';
import { expectTotals } from './child-tests.js';
import { type ConformanceContext, rejection } from './context.js';
import { documentRecord, ORG_A, ORG_B, predictionRecord } from './fixtures.js';

/** Every child of a parent in order, through one large page. */
async function childIds(storage: Storage, parent: string): Promise<string[]> {
  const page = await storage.documents.list(ORG_A, parent, { limit: 100_000 });
  return page!.items.map((d) => d.id);
}

/** A document whose `size` (its totals) is `size`. */
const doc = (id: string, size: number, parent = 'eval_1'): DocumentRecord => documentRecord(ORG_A, parent, id, size);

/** `putMany`: many compare-and-set writes of one parent's children as one all-or-nothing commit. */
export function batchChildTests(ctx: ConformanceContext): void {
  for (const group of [putManyTests, putManyScaleTests]) group(ctx);
}

/** putMany's modes, all or nothing, and what it refuses. */
function putManyTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('putMany writes every entry (replace at a version, insert-only, upsert) in one step, keeping order and totals', async () => {
    const storage = await ctx.open();
    await storage.documents.insertMany([doc('file_a', 1), doc('file_b', 2), doc('file_c', 3)]);
    await storage.documents.put(doc('file_b', 20), 1); // file_b now at version 2
    const result = await storage.documents.putMany([
      { record: doc('file_new1', 100), expectedVersion: 0 },
      { record: doc('file_b', 200), expectedVersion: 2 },
      { record: doc('file_c', 300) },
      { record: doc('file_new2', 400) },
    ]);
    expect(result).toEqual({
      ok: true,
      records: [
        { value: doc('file_new1', 100), version: 1 },
        { value: doc('file_b', 200), version: 3 },
        { value: doc('file_c', 300), version: 2 },
        { value: doc('file_new2', 400), version: 1 },
      ],
    });
    // Replaced children keep their place; new ones go last, in the order given.
    expect(await childIds(storage, 'eval_1')).toEqual(['file_a', 'file_b', 'file_c', 'file_new1', 'file_new2']);
    expect(await storage.documents.get(ORG_A, 'eval_1', 'file_b')).toEqual({ value: doc('file_b', 200), version: 3 });
    expectTotals(await storage.documents.totals(ORG_A, 'eval_1'), { count: 5, sums: { size: 1 + 200 + 300 + 100 + 400 } });
    expect(await storage.documents.putMany([])).toEqual({ ok: true, records: [] });
    // A parent's first children can come from putMany too.
    expect((await storage.predictions.putMany([{ record: predictionRecord(ORG_A, 'iter_1', 'file_a', 0.25), expectedVersion: 0 }])).ok).toBe(true);
    expectTotals(await storage.predictions.totals(ORG_A, 'iter_1'), {
      count: 1,
      sums: predictionRecord(ORG_A, 'iter_1', 'file_a', 0.25).totals,
    });
  }, t);

  it('putMany is all or nothing: one version that moved writes no entry and names every conflicting one', async () => {
    const storage = await ctx.open();
    await storage.documents.insertMany([doc('file_a', 1), doc('file_b', 2), doc('file_c', 3)]);
    await storage.documents.put(doc('file_c', 30), 1); // file_c moved to version 2
    const before = await storage.documents.getMany(ORG_A, 'eval_1', ['file_a', 'file_b', 'file_c']);
    const entries: ChildPut<DocumentRecord>[] = [
      { record: doc('file_a', 10), expectedVersion: 1 }, // matches
      { record: doc('file_new', 99) }, // would insert
      { record: doc('file_c', 300), expectedVersion: 1 }, // stale
      { record: doc('file_b', 200), expectedVersion: 0 }, // insert-only of a taken id
      { record: doc('file_gone', 5), expectedVersion: 4 }, // replace of a child that does not exist
    ];
    expect(await storage.documents.putMany(entries)).toEqual({ ok: false, conflicts: [2, 3, 4] });
    expect(await storage.documents.getMany(ORG_A, 'eval_1', ['file_a', 'file_b', 'file_c'])).toEqual(before);
    expect(await storage.documents.get(ORG_A, 'eval_1', 'file_new')).toBeNull();
    expect(await childIds(storage, 'eval_1')).toEqual(['file_a', 'file_b', 'file_c']);
    expectTotals(await storage.documents.totals(ORG_A, 'eval_1'), { count: 3, sums: { size: 1 + 2 + 30 } });
    // The caller re-reads the conflicting entries and tries again: now the batch goes through.
    const [c] = await storage.documents.getMany(ORG_A, 'eval_1', ['file_c']);
    const retried = await storage.documents.putMany([entries[0]!, entries[1]!, { record: doc('file_c', 300), expectedVersion: c!.version }]);
    expect(retried.ok).toBe(true);
    expectTotals(await storage.documents.totals(ORG_A, 'eval_1'), { count: 4, sums: { size: 10 + 2 + 300 + 99 } });
  }, t);

  it('putMany refuses an id twice (conflict) and records of two parents (internal_error), writing nothing', async () => {
    const storage = await ctx.open();
    await storage.documents.insertMany([doc('file_a', 1)]);
    const twice = await rejection(storage.documents.putMany([{ record: doc('file_a', 2) }, { record: doc('file_b', 3) }, { record: doc('file_a', 4) }]));
    expect(twice.code).toBe('conflict');
    const mixed = await rejection(storage.documents.putMany([{ record: doc('file_a', 2) }, { record: doc('file_b', 3, 'eval_2') }]));
    expect(mixed.code).toBe('internal_error');
    const orgs = await rejection(storage.documents.putMany([{ record: doc('file_a', 2) }, { record: documentRecord(ORG_B, 'eval_1', 'file_b') }]));
    expect(orgs.code).toBe('internal_error');
    expect(await storage.documents.get(ORG_A, 'eval_1', 'file_a')).toEqual({ value: doc('file_a', 1), version: 1 });
    expect(await childIds(storage, 'eval_1')).toEqual(['file_a']);
    expect(await storage.documents.get(ORG_A, 'eval_2', 'file_b')).toBeNull();
    expectTotals(await storage.documents.totals(ORG_A, 'eval_1'), { count: 1, sums: { size: 1 } });
  }, t);
}

/** A large putMany, and two writers of overlapping batches. */
function putManyScaleTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('putMany of 10,000 children is one batch (inserted, then replaced at their versions), totals exact', async () => {
    const storage = await ctx.open();
    const n = 10_000;
    const first = await storage.documents.putMany(Array.from({ length: n }, (_, i) => ({ record: doc(`file_${i}`, 1), expectedVersion: 0 })));
    expect(first.ok).toBe(true);
    const second = await storage.documents.putMany(Array.from({ length: n }, (_, i) => ({ record: doc(`file_${i}`, i), expectedVersion: 1 })));
    expect(second.ok && second.records.every((r) => r.version === 2)).toBe(true);
    expectTotals(await storage.documents.totals(ORG_A, 'eval_1'), { count: n, sums: { size: (n * (n - 1)) / 2 } });
    const ids = await childIds(storage, 'eval_1');
    expect(ids.length).toBe(n);
    expect(ids[0]).toBe('file_0');
    expect(ids[n - 1]).toBe(`file_${n - 1}`);
  }, t);

  it('two writers putting overlapping batches with read versions (retrying conflicts) never lose a write', async () => {
    const storage = await ctx.open();
    const ids = Array.from({ length: 12 }, (_, i) => `file_${i}`);
    await storage.documents.insertMany(ids.map((id) => doc(id, 0)));
    const rounds = 15;
    // Each writer adds 1 to the size of a window of the children, `rounds` times: read, change, putMany; on a
    // conflict (nothing of the batch written) it reads the window again and tries again.
    async function writer(window: string[]): Promise<number> {
      let conflictsSeen = 0;
      for (let round = 0; round < rounds; round++) {
        let todo = window;
        for (let attempt = 0; todo.length > 0; attempt++) {
          if (attempt > 500) throw new Error('a writer never got its batch through');
          const current = await storage.documents.getMany(ORG_A, 'eval_1', todo);
          const entries = current.map((c) => ({ record: doc(c!.value.id, c!.value.size + 1), expectedVersion: c!.version }));
          const result = await storage.documents.putMany(entries);
          if (result.ok) todo = [];
          else {
            conflictsSeen++;
            expect(result.conflicts.length).toBeGreaterThan(0);
          }
          if (!result.ok && attempt > 2) await new Promise((r) => setTimeout(r, Math.random() * 3));
        }
      }
      return conflictsSeen;
    }
    await Promise.all([writer(ids.slice(0, 8)), writer(ids.slice(4, 12)), writer(ids.slice(2, 10))]);
    const stored = await storage.documents.getMany(ORG_A, 'eval_1', ids);
    const sizes = stored.map((s) => s!.value.size);
    // Children in one window got `rounds`, in two windows 2 × rounds, in three 3 × rounds: no increment lost.
    const windows = ids.map((_, i) => [i < 8, i >= 4, i >= 2 && i < 10].filter(Boolean).length);
    expect(sizes).toEqual(windows.map((w) => w * rounds));
    expectTotals(await storage.documents.totals(ORG_A, 'eval_1'), { count: ids.length, sums: { size: sizes.reduce((a, b) => a + b, 0) } });
  }, t);
}
