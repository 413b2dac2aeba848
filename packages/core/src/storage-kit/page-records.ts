import type { RecordListQuery, RecordPage, StoredRecordBase } from '../storage.js';

/**
 * Compares two records by `updated_at`, then `id`, as plain text (UTF-16 code units, never `localeCompare`): the
 * order must not depend on the host's locale, and ISO timestamps sort correctly as text.
 */
export function compareRecords(a: StoredRecordBase, b: StoredRecordBase): number {
  return compareKeys(a.updated_at, a.id, b.updated_at, b.id);
}

function compareKeys(aTime: string, aId: string, bTime: string, bId: string): number {
  if (aTime !== bTime) return aTime < bTime ? -1 : 1;
  if (aId !== bId) return aId < bId ? -1 : 1;
  return 0;
}

/** True when every `where` entry equals the record's own top-level field of that name. */
export function matchesWhere(record: StoredRecordBase, where: Record<string, string> | undefined): boolean {
  if (!where) return true;
  const fields = record as StoredRecordBase & Record<string, unknown>; // read by name: any top-level field
  for (const [field, value] of Object.entries(where)) {
    if (!Object.hasOwn(fields, field) || fields[field] !== value) return false;
  }
  return true;
}

/**
 * One page of `records` (one organization's, in any order) for `query`, shared by the in-process adapters so that
 * they page exactly alike. The cursor is positioned by its `(updated_at, id)` key, so a cursor record that the
 * `where` filter excludes still marks a place in the order. Returns the stored objects themselves: the caller copies.
 *
 * @returns null when a cursor names no record of the organization.
 */
export function pageRecords<T extends StoredRecordBase>(
  records: Iterable<T>,
  query: RecordListQuery,
  findById: (id: string) => T | undefined,
): RecordPage<T> | null {
  const after = query.after === undefined ? undefined : findById(query.after);
  const before = query.before === undefined ? undefined : findById(query.before);
  if ((query.after !== undefined && !after) || (query.before !== undefined && !before)) return null;

  // In the direction of travel: +1 means "comes later in `order`".
  const sign = query.order === 'desc' ? -1 : 1;
  const matching: T[] = [];
  for (const record of records) {
    if (!matchesWhere(record, query.where)) continue;
    if (after && sign * compareRecords(record, after) <= 0) continue;
    if (before && sign * compareRecords(record, before) >= 0) continue;
    matching.push(record);
  }
  matching.sort((a, b) => sign * compareRecords(a, b));

  const limit = Math.max(0, Math.floor(query.limit));
  if (before) {
    // The records just before the cursor are the tail of what precedes it; more exist further back.
    const start = Math.max(0, matching.length - limit);
    return { items: matching.slice(start), has_more: start > 0 };
  }
  return { items: matching.slice(0, limit), has_more: matching.length > limit };
}
