import type { StoredRecordBase } from '@docevals/core';
import { describe, expect, it } from 'vitest';
import { type ConformanceContext, rejection, tamper } from './context.js';
import { at, COLLECTION_CASES, type CollectionCase, ORG_A, ORG_B } from './fixtures.js';

/** Create, read, compare-and-set, delete, copies and tenant scoping, for each of the three collections. */
export function recordTests(ctx: ConformanceContext): void {
  for (const c of COLLECTION_CASES) {
    describe(c.key, () => {
      crud(ctx, c);
      tenancy(ctx, c);
    });
  }
}

function crud(ctx: ConformanceContext, c: CollectionCase): void {
  for (const group of [insertAndReplaceTests, deleteTests, copyTests]) group(ctx, c);
}

/** insert, getMany and replace (compare-and-set). */
function insertAndReplaceTests(ctx: ConformanceContext, c: CollectionCase): void {
  const t = ctx.timeout;

  it('stores a record at version 1 and reads back an equal copy', async () => {
    const col = c.select(await ctx.open());
    const record = c.make(ORG_A, 'rec_1', at(1));
    const inserted = await col.insert(record);
    expect(inserted).toEqual({ value: record, version: 1 });
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: record, version: 1 });
    expect(await col.get(ORG_A, 'rec_unknown')).toBeNull();
  }, t);

  it('getMany answers in the order of the ids, with null for unknown ids and for other organizations\' ids', async () => {
    const col = c.select(await ctx.open());
    const a = c.make(ORG_A, 'rec_a', at(1));
    const b = c.make(ORG_A, 'rec_b', at(2));
    await col.insert(a);
    await col.insert(b);
    await col.insert(c.make(ORG_B, 'rec_other', at(3)));
    const many = await col.getMany(ORG_A, ['rec_b', 'rec_unknown', 'rec_a', 'rec_other', 'rec_b']);
    expect(many).toEqual([
      { value: b, version: 1 },
      null,
      { value: a, version: 1 },
      null,
      { value: b, version: 1 },
    ]);
    expect(await col.getMany(ORG_A, [])).toEqual([]);
  }, t);

  it('refuses to insert an id the organization already has, with a conflict, and keeps the stored record', async () => {
    const col = c.select(await ctx.open());
    const first = c.make(ORG_A, 'rec_1', at(1));
    await col.insert(first);
    const error = await rejection(col.insert(c.change(c.make(ORG_A, 'rec_1', at(2)), 'second')));
    expect(error.name).toBe('DocevalsError');
    expect(error.code).toBe('conflict');
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: first, version: 1 });
  }, t);

  it('replace writes the record and increments the version when the expected version matches', async () => {
    const col = c.select(await ctx.open());
    await col.insert(c.make(ORG_A, 'rec_1', at(1)));
    const v2 = c.change(c.make(ORG_A, 'rec_1', at(2)), 'two');
    expect(await col.replace(v2, 1)).toEqual({ value: v2, version: 2 });
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: v2, version: 2 });
    const v3 = c.change(c.make(ORG_A, 'rec_1', at(3)), 'three');
    expect(await col.replace(v3, 2)).toEqual({ value: v3, version: 3 });
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: v3, version: 3 });
  }, t);

  it('replace with a stale or future version returns null and changes nothing', async () => {
    const col = c.select(await ctx.open());
    await col.insert(c.make(ORG_A, 'rec_1', at(1)));
    const v2 = c.change(c.make(ORG_A, 'rec_1', at(2)), 'two');
    await col.replace(v2, 1);
    expect(await col.replace(c.change(c.make(ORG_A, 'rec_1', at(3)), 'stale'), 1)).toBeNull();
    expect(await col.replace(c.change(c.make(ORG_A, 'rec_1', at(3)), 'future'), 3)).toBeNull();
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: v2, version: 2 });
  }, t);
}

/** replace of a missing record, and delete with and without a version. */
function deleteTests(ctx: ConformanceContext, c: CollectionCase): void {
  const t = ctx.timeout;

  it('replace of a missing or deleted record returns null and creates nothing', async () => {
    const col = c.select(await ctx.open());
    expect(await col.replace(c.make(ORG_A, 'rec_never', at(1)), 1)).toBeNull();
    expect(await col.get(ORG_A, 'rec_never')).toBeNull();
    await col.insert(c.make(ORG_A, 'rec_gone', at(1)));
    await col.delete(ORG_A, 'rec_gone');
    expect(await col.replace(c.make(ORG_A, 'rec_gone', at(2)), 1)).toBeNull();
    expect(await col.get(ORG_A, 'rec_gone')).toBeNull();
    expect((await col.list(ORG_A, { limit: 10, order: 'asc' }))?.items).toEqual([]);
  }, t);

  it('delete removes the record, answers false when there was none, and frees the id', async () => {
    const col = c.select(await ctx.open());
    await col.insert(c.make(ORG_A, 'rec_1', at(1)));
    await col.insert(c.make(ORG_A, 'rec_2', at(2)));
    expect(await col.delete(ORG_A, 'rec_1')).toBe(true);
    expect(await col.get(ORG_A, 'rec_1')).toBeNull();
    expect(await col.getMany(ORG_A, ['rec_1', 'rec_2'])).toEqual([null, { value: c.make(ORG_A, 'rec_2', at(2)), version: 1 }]);
    expect(await col.delete(ORG_A, 'rec_1')).toBe(false);
    expect(await col.delete(ORG_A, 'rec_never')).toBe(false);
    const again = c.change(c.make(ORG_A, 'rec_1', at(3)), 'again');
    expect(await col.insert(again)).toEqual({ value: again, version: 1 });
  }, t);

  it('delete with an expected version removes the record only while it is still that version', async () => {
    const col = c.select(await ctx.open());
    const first = c.make(ORG_A, 'rec_v', at(1));
    await col.insert(first);
    const changed = c.change(first, 'changed');
    await col.replace(changed, 1);
    expect(await col.delete(ORG_A, 'rec_v', 1)).toBe(false);
    expect(await col.get(ORG_A, 'rec_v')).toEqual({ value: changed, version: 2 });
    expect((await col.list(ORG_A, { limit: 10, order: 'asc' }))?.items).toEqual([changed]);
    expect(await col.delete(ORG_B, 'rec_v', 2)).toBe(false);
    expect(await col.delete(ORG_A, 'rec_v', 2)).toBe(true);
    expect(await col.get(ORG_A, 'rec_v')).toBeNull();
    expect(await col.delete(ORG_A, 'rec_v', 2)).toBe(false);
  }, t);
}

/** Copies, and records that share no storage. */
function copyTests(ctx: ConformanceContext, c: CollectionCase): void {
  const t = ctx.timeout;

  it('hands out copies: changing an object given to or returned by the store does not change the store', async () => {
    const col = c.select(await ctx.open());
    const original = c.make(ORG_A, 'rec_1', at(1));
    const input = structuredClone(original);
    const inserted = await col.insert(input);
    const mess = (r: StoredRecordBase) => {
      tamper(() => { Reflect.set(r, 'updated_at', at(99)); });
      tamper(() => { Reflect.set(Reflect.get(r, 'json_schema') as object, 'tampered', true); });
    };
    mess(input);
    mess(inserted.value);
    mess((await col.get(ORG_A, 'rec_1'))!.value);
    mess((await col.getMany(ORG_A, ['rec_1']))[0]!.value);
    mess((await col.list(ORG_A, { limit: 10, order: 'asc' }))!.items[0]);
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: original, version: 1 });

    const replacement = c.change(c.make(ORG_A, 'rec_1', at(2)), 'two');
    const replaceInput = structuredClone(replacement);
    const replaced = await col.replace(replaceInput, 1);
    mess(replaceInput);
    mess(replaced!.value);
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: replacement, version: 2 });
  }, t);

  it('two records in one organization never share storage', async () => {
    const col = c.select(await ctx.open());
    const one = c.make(ORG_A, 'rec_1', at(1));
    const two = c.change(c.make(ORG_A, 'rec_2', at(2)), 'two');
    await col.insert(one);
    await col.insert(two);
    await col.replace(c.change(c.make(ORG_A, 'rec_1', at(3)), 'changed'), 1);
    expect(await col.get(ORG_A, 'rec_2')).toEqual({ value: two, version: 1 });
  }, t);
}

function tenancy(ctx: ConformanceContext, c: CollectionCase): void {
  const t = ctx.timeout;

  it('another organization never sees, lists, replaces or deletes a record, even under the same id', async () => {
    const col = c.select(await ctx.open());
    const mine = c.make(ORG_A, 'rec_1', at(1));
    await col.insert(mine);

    expect(await col.get(ORG_B, 'rec_1')).toBeNull();
    expect(await col.getMany(ORG_B, ['rec_1'])).toEqual([null]);
    expect(await col.list(ORG_B, { limit: 10, order: 'asc' })).toEqual({ items: [], has_more: false });
    expect(await col.list(ORG_B, { limit: 10, order: 'asc', after: 'rec_1' })).toBeNull();
    expect(await col.replace(c.change(c.make(ORG_B, 'rec_1', at(2)), 'intruder'), 1)).toBeNull();
    expect(await col.delete(ORG_B, 'rec_1')).toBe(false);
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: mine, version: 1 });
  }, t);

  it('the same id in two organizations names two independent records', async () => {
    const col = c.select(await ctx.open());
    const mine = c.make(ORG_A, 'rec_1', at(1));
    const theirs = c.change(c.make(ORG_B, 'rec_1', at(5)), 'theirs');
    await col.insert(mine);
    expect(await col.insert(theirs)).toEqual({ value: theirs, version: 1 });

    const theirs2 = c.change(c.make(ORG_B, 'rec_1', at(6)), 'theirs again');
    expect(await col.replace(theirs2, 1)).toEqual({ value: theirs2, version: 2 });
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: mine, version: 1 });
    expect(await col.get(ORG_B, 'rec_1')).toEqual({ value: theirs2, version: 2 });
    expect((await col.list(ORG_A, { limit: 10, order: 'asc' }))!.items).toEqual([mine]);

    expect(await col.delete(ORG_B, 'rec_1')).toBe(true);
    expect(await col.get(ORG_A, 'rec_1')).toEqual({ value: mine, version: 1 });
    expect(await col.get(ORG_B, 'rec_1')).toBeNull();
  }, t);
}
