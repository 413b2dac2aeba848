import type { ListMetadata } from '../schemas/lists.js';
import type { RecordCollection, RecordPage, StoredRecordBase } from '../storage.js';
import { invalidRequest } from './validate.js';

interface Cursors {
  before?: string;
  after?: string;
}

/** Refuses a query with both cursors: a page is read in one direction. */
export function assertOneCursor(query: Cursors): void {
  if (query.before !== undefined && query.after !== undefined) {
    throw invalidRequest([{ path: 'before', message: 'give before or after, not both' }]);
  }
}

/** A cursor that names no object: the client's cursor is stale or foreign. */
export function unknownCursor(query: Cursors) {
  const path = query.before !== undefined ? 'before' : 'after';
  return invalidRequest([{ path, message: `no object with id "${query[path]}" in this list; start again without a cursor` }]);
}

/**
 * `list_metadata` of a page (docs/spec/service.md, Lists): `after` is the last id when more follow, `before` the first id when
 * some precede. Reading with a cursor means the cursor's own side has objects.
 */
export function listMetadata<T extends { id: string }>(page: RecordPage<T>, query: Cursors): ListMetadata {
  const first = page.items[0]?.id ?? null;
  const last = page.items[page.items.length - 1]?.id ?? null;
  if (query.before !== undefined) return { before: page.has_more ? first : null, after: last ?? query.before };
  if (query.after !== undefined) return { before: first ?? query.after, after: page.has_more ? last : null };
  return { before: null, after: page.has_more ? last : null };
}

/** Pages through an in-memory list (documents of an evaluation) with the same contract as the stores. */
export function pageOf<T extends { id: string }>(
  all: readonly T[],
  query: Cursors & { limit: number; order: 'asc' | 'desc' },
): RecordPage<T> | null {
  const ordered = query.order === 'asc' ? all : [...all].reverse();
  if (query.after !== undefined) {
    const at = ordered.findIndex((x) => x.id === query.after);
    if (at < 0) return null;
    const rest = ordered.slice(at + 1);
    return { items: rest.slice(0, query.limit), has_more: rest.length > query.limit };
  }
  if (query.before !== undefined) {
    const at = ordered.findIndex((x) => x.id === query.before);
    if (at < 0) return null;
    const start = Math.max(0, at - query.limit);
    return { items: ordered.slice(start, at), has_more: start > 0 };
  }
  return { items: ordered.slice(0, query.limit), has_more: ordered.length > query.limit };
}

/**
 * One page of a collection for a list request: exact-match filters on the given keys, the request's order and
 * cursors, and a 422 for both cursors or an unknown one.
 */
export async function readPage<T extends StoredRecordBase, Q extends Cursors & { limit: number; order: 'asc' | 'desc' }>(
  collection: RecordCollection<T>,
  organizationId: string,
  query: Q,
  filterKeys: ReadonlyArray<keyof Q & string>,
): Promise<RecordPage<T>> {
  assertOneCursor(query);
  const where: Record<string, string> = {};
  for (const key of filterKeys) {
    const value = query[key];
    if (typeof value === 'string') where[key] = value;
  }
  const page = await collection.list(organizationId, {
    limit: query.limit,
    order: query.order,
    before: query.before,
    after: query.after,
    where,
  });
  if (!page) throw unknownCursor(query);
  return page;
}
