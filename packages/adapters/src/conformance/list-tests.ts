import type { RecordCollection, RecordListQuery, StoredRecordBase } from '@docevals/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceContext } from './context.js';
import { at, COLLECTION_CASES, type CollectionCase, ORG_A, ORG_B } from './fixtures.js';

/**
 * The data set of the list tests: three records share one updated_at, so the id decides among them, and the ids
 * mix case ('rec_B' sorts before 'rec_a' as text; a locale-aware comparison would get it wrong).
 * Inserted in a shuffled order, so that insertion order cannot pass for the sort.
 */
const ROWS: Array<{ id: string; t: number; tag: string; tag2: string }> = [
  { id: 'rec_d', t: 3, tag: 'beta', tag2: 'x' },
  { id: 'rec_f', t: 5, tag: 'alpha', tag2: 'x' },
  { id: 'rec_a', t: 2, tag: 'alpha', tag2: 'y' },
  { id: 'rec_e', t: 1, tag: 'alpha', tag2: 'x' },
  { id: 'rec_0', t: 4, tag: 'alpha', tag2: 'y' },
  { id: 'rec_c', t: 2, tag: 'alpha', tag2: 'x' },
  { id: 'rec_B', t: 2, tag: 'beta', tag2: 'x' },
];
/** Written out by hand rather than computed, so that the suite does not share a bug with an adapter. */
const ASC = ['rec_e', 'rec_B', 'rec_a', 'rec_c', 'rec_d', 'rec_0', 'rec_f'];
const DESC = [...ASC].reverse();

async function seed(col: RecordCollection<StoredRecordBase>, c: CollectionCase): Promise<void> {
  for (const row of ROWS) await col.insert(c.make(ORG_A, row.id, at(row.t), row.tag, row.tag2));
  // Another organization with an overlapping id and an id of its own, placed between A's timestamps.
  await col.insert(c.make(ORG_B, 'rec_a', at(0), 'alpha', 'y'));
  await col.insert(c.make(ORG_B, 'rec_x', at(3), 'alpha', 'x'));
}

/** A fresh store's collection of case `c`, seeded with ROWS. */
async function seeded(ctx: ConformanceContext, c: CollectionCase): Promise<RecordCollection<StoredRecordBase>> {
  const col = c.select(await ctx.open());
  await seed(col, c);
  return col;
}

async function ids(col: RecordCollection<StoredRecordBase>, query: RecordListQuery, org = ORG_A) {
  const page = await col.list(org, query);
  expect(page).not.toBeNull();
  return { ids: page!.items.map((r) => r.id), has_more: page!.has_more };
}

/** Ordering, limits, cursors both ways, has_more, unknown cursors and filters, for each collection. */
export function listTests(ctx: ConformanceContext): void {
  for (const c of COLLECTION_CASES) describe(`${c.key} list`, () => listsOf(ctx, c));
}

function listsOf(ctx: ConformanceContext, c: CollectionCase): void {
  for (const group of [orderTests, cursorTests, filterTests]) group(ctx, c);
}

/** Order, limit and the two cursors. */
function orderTests(ctx: ConformanceContext, c: CollectionCase): void {
  const t = ctx.timeout;

  it('orders by updated_at, then id, ascending and descending', async () => {
    const col = await seeded(ctx, c);
    expect(await ids(col, { limit: 100, order: 'asc' })).toEqual({ ids: ASC, has_more: false });
    expect(await ids(col, { limit: 100, order: 'desc' })).toEqual({ ids: DESC, has_more: false });
    const page = await col.list(ORG_A, { limit: 1, order: 'asc' });
    expect(page!.items[0]).toEqual(c.make(ORG_A, 'rec_e', at(1), 'alpha', 'x'));
  }, t);

  it('cuts the page at limit and says whether more follow', async () => {
    const col = await seeded(ctx, c);
    expect(await ids(col, { limit: 3, order: 'asc' })).toEqual({ ids: ASC.slice(0, 3), has_more: true });
    expect(await ids(col, { limit: 3, order: 'desc' })).toEqual({ ids: DESC.slice(0, 3), has_more: true });
    expect(await ids(col, { limit: 6, order: 'asc' })).toEqual({ ids: ASC.slice(0, 6), has_more: true });
    expect(await ids(col, { limit: 7, order: 'asc' })).toEqual({ ids: ASC, has_more: false });
    expect(await ids(col, { limit: 8, order: 'desc' })).toEqual({ ids: DESC, has_more: false });
  }, t);

  it('after returns the records just after the cursor (exclusive), in order', async () => {
    const col = await seeded(ctx, c);
    expect(await ids(col, { limit: 2, order: 'asc', after: 'rec_B' })).toEqual({ ids: ['rec_a', 'rec_c'], has_more: true });
    expect(await ids(col, { limit: 3, order: 'asc', after: 'rec_d' })).toEqual({ ids: ['rec_0', 'rec_f'], has_more: false });
    expect(await ids(col, { limit: 2, order: 'desc', after: 'rec_c' })).toEqual({ ids: ['rec_a', 'rec_B'], has_more: true });
    expect(await ids(col, { limit: 2, order: 'desc', after: 'rec_B' })).toEqual({ ids: ['rec_e'], has_more: false });
    expect(await ids(col, { limit: 2, order: 'asc', after: 'rec_f' })).toEqual({ ids: [], has_more: false });
  }, t);

  it('before returns the records just before the cursor (exclusive), in the requested order', async () => {
    const col = await seeded(ctx, c);
    expect(await ids(col, { limit: 2, order: 'asc', before: 'rec_0' })).toEqual({ ids: ['rec_c', 'rec_d'], has_more: true });
    expect(await ids(col, { limit: 5, order: 'asc', before: 'rec_a' })).toEqual({ ids: ['rec_e', 'rec_B'], has_more: false });
    expect(await ids(col, { limit: 2, order: 'desc', before: 'rec_B' })).toEqual({ ids: ['rec_c', 'rec_a'], has_more: true });
    expect(await ids(col, { limit: 3, order: 'desc', before: 'rec_0' })).toEqual({ ids: ['rec_f'], has_more: false });
    expect(await ids(col, { limit: 2, order: 'asc', before: 'rec_e' })).toEqual({ ids: [], has_more: false });
    expect(await ids(col, { limit: 2, order: 'desc', before: 'rec_f' })).toEqual({ ids: [], has_more: false });
  }, t);
}

/** Both cursors at once, unknown cursors, organizations. */
function cursorTests(ctx: ConformanceContext, c: CollectionCase): void {
  const t = ctx.timeout;

  for (const order of ['asc', 'desc'] as const) {
    const all = order === 'asc' ? ASC : DESC;

    it(`walks every record once with after cursors (${order})`, async () => {
      const col = await seeded(ctx, c);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await ids(col, { limit: 2, order, ...(cursor ? { after: cursor } : {}) });
        seen.push(...page.ids);
        if (!page.has_more) break;
        cursor = page.ids[page.ids.length - 1];
      }
      expect(seen).toEqual(all);
    }, t);

    it(`walks back to the first record with before cursors (${order})`, async () => {
      const col = await seeded(ctx, c);
      const seen: string[] = [];
      let cursor = all[all.length - 1];
      for (let pages = 0; pages < 10; pages++) {
        const page = await ids(col, { limit: 2, order, before: cursor });
        seen.unshift(...page.ids);
        if (!page.has_more) break;
        cursor = page.ids[0];
      }
      expect(seen).toEqual(all.slice(0, -1));
    }, t);
  }

  it('returns null for a cursor that names no record of the organization', async () => {
    const col = await seeded(ctx, c);
    expect(await col.list(ORG_A, { limit: 2, order: 'asc', after: 'rec_unknown' })).toBeNull();
    expect(await col.list(ORG_A, { limit: 2, order: 'desc', before: 'rec_unknown' })).toBeNull();
    // rec_x exists, but only in the other organization.
    expect(await col.list(ORG_A, { limit: 2, order: 'asc', after: 'rec_x' })).toBeNull();
    expect(await col.list(ORG_A, { limit: 2, order: 'asc', before: 'rec_x' })).toBeNull();
    expect(await col.list(ORG_A, { limit: 2, order: 'asc', after: 'rec_f', where: { [c.tagField]: 'none' } })).not.toBeNull();
  }, t);

  it('lists only the organization\'s own records', async () => {
    const col = await seeded(ctx, c);
    expect(await ids(col, { limit: 10, order: 'asc' }, ORG_B)).toEqual({ ids: ['rec_a', 'rec_x'], has_more: false });
    expect(await ids(col, { limit: 10, order: 'desc', after: 'rec_x' }, ORG_B)).toEqual({ ids: ['rec_a'], has_more: false });
    const page = await col.list(ORG_B, { limit: 10, order: 'asc' });
    expect(page!.items[0]).toEqual(c.make(ORG_B, 'rec_a', at(0), 'alpha', 'y'));
  }, t);
}

/** where, alone and with cursors, and lists that follow writes. */
function filterTests(ctx: ConformanceContext, c: CollectionCase): void {
  const t = ctx.timeout;

  it('filters with where on exact values, every entry having to match', async () => {
    const col = await seeded(ctx, c);
    const tag = c.tagField;
    const tag2 = c.tag2Field;
    expect(await ids(col, { limit: 10, order: 'asc', where: { [tag]: 'alpha' } })).toEqual({
      ids: ['rec_e', 'rec_a', 'rec_c', 'rec_0', 'rec_f'],
      has_more: false,
    });
    expect(await ids(col, { limit: 10, order: 'desc', where: { [tag]: 'beta' } })).toEqual({ ids: ['rec_d', 'rec_B'], has_more: false });
    expect(await ids(col, { limit: 10, order: 'asc', where: { [tag]: 'alpha', [tag2]: 'y' } })).toEqual({
      ids: ['rec_a', 'rec_0'],
      has_more: false,
    });
    expect(await ids(col, { limit: 10, order: 'asc', where: { [tag]: 'beta', [tag2]: 'y' } })).toEqual({ ids: [], has_more: false });
    expect(await ids(col, { limit: 10, order: 'asc', where: { [tag]: 'alph' } })).toEqual({ ids: [], has_more: false });
    expect(await ids(col, { limit: 10, order: 'asc', where: { [tag]: 'ALPHA' } })).toEqual({ ids: [], has_more: false });
    expect(await ids(col, { limit: 2, order: 'asc', where: { [tag]: 'alpha' } })).toEqual({ ids: ['rec_e', 'rec_a'], has_more: true });
  }, t);

  it('combines where with cursors, a cursor outside the filter still marking its place', async () => {
    const col = await seeded(ctx, c);
    const tag = c.tagField;
    expect(await ids(col, { limit: 2, order: 'asc', after: 'rec_a', where: { [tag]: 'alpha' } })).toEqual({
      ids: ['rec_c', 'rec_0'],
      has_more: true,
    });
    // rec_B and rec_d are beta records: as cursors they still sit at their place in the order.
    expect(await ids(col, { limit: 2, order: 'asc', after: 'rec_B', where: { [tag]: 'alpha' } })).toEqual({
      ids: ['rec_a', 'rec_c'],
      has_more: true,
    });
    expect(await ids(col, { limit: 2, order: 'asc', before: 'rec_d', where: { [tag]: 'alpha' } })).toEqual({
      ids: ['rec_a', 'rec_c'],
      has_more: true,
    });
    expect(await ids(col, { limit: 2, order: 'desc', after: 'rec_d', where: { [tag]: 'alpha' } })).toEqual({
      ids: ['rec_c', 'rec_a'],
      has_more: true,
    });
    expect(await ids(col, { limit: 5, order: 'desc', before: 'rec_B', where: { [tag]: 'alpha' } })).toEqual({
      ids: ['rec_f', 'rec_0', 'rec_c', 'rec_a'],
      has_more: false,
    });
    expect(await ids(col, { limit: 5, order: 'desc', after: 'rec_a', where: { [tag]: 'alpha' } })).toEqual({
      ids: ['rec_e'],
      has_more: false,
    });
  }, t);

  it('follows replaces that move updated_at and drops deleted records', async () => {
    const col = await seeded(ctx, c);
    const current = await col.get(ORG_A, 'rec_e');
    await col.replace({ ...current!.value, updated_at: at(6) }, current!.version);
    await col.delete(ORG_A, 'rec_c');
    expect(await ids(col, { limit: 10, order: 'asc' })).toEqual({
      ids: ['rec_B', 'rec_a', 'rec_d', 'rec_0', 'rec_f', 'rec_e'],
      has_more: false,
    });
    expect(await ids(col, { limit: 1, order: 'desc' })).toEqual({ ids: ['rec_e'], has_more: true });
    expect(await col.list(ORG_A, { limit: 2, order: 'asc', after: 'rec_c' })).toBeNull();
  }, t);
}
