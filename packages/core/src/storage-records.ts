// The record collection contract (re-exported by storage.ts, where the whole storage contract is documented).

/** A record with the version that a later {@link RecordCollection.replace} must name. */
export interface Versioned<T> {
  readonly value: T;
  /** Starts at 1 on insert and grows by one with every replace. */
  readonly version: number;
}

/** What every stored record carries. Records are scoped by organization: another one's record does not exist. */
export interface StoredRecordBase {
  id: string;
  organization_id: string;
  /** ISO 8601 UTC with milliseconds (`toISOString()`), so it sorts as text. */
  updated_at: string;
}

export interface RecordListQuery {
  limit: number;
  /** By `updated_at`, then `id`. */
  order: 'asc' | 'desc';
  /** The `limit` records just before this id in `order` (exclusive), returned in `order`. */
  before?: string;
  /** The `limit` records just after this id in `order` (exclusive). */
  after?: string;
  /** Exact match on top-level string fields of the record (`{ model: 'gpt-4o' }`); all must match. */
  where?: Record<string, string>;
}

export interface RecordPage<T> {
  items: T[];
  /** More matching records exist beyond this page in the direction of travel. */
  has_more: boolean;
}

/**
 * One collection of records. Every method is atomic on its own; `replace` is the compare-and-set that makes
 * read-modify-write safe.
 */
export interface RecordCollection<T extends StoredRecordBase> {
  get(organizationId: string, id: string): Promise<Versioned<T> | null>;
  /** In the order of `ids`, null for each id that does not exist in the organization. */
  getMany(organizationId: string, ids: readonly string[]): Promise<Array<Versioned<T> | null>>;
  /** Stores a new record at version 1. A record with the same id in the organization: `DocevalsError('conflict')`. */
  insert(record: T): Promise<Versioned<T>>;
  /**
   * Replaces the record if its stored version is still `expectedVersion`; returns the new version, or null when the
   * record changed meanwhile or is gone (the caller re-reads and tries again).
   */
  replace(record: T, expectedVersion: number): Promise<Versioned<T> | null>;
  /**
   * Removes the record; false when there was none. With `expectedVersion`, removes it only if its stored version is
   * still that one (false otherwise, nothing changed): the compare-and-set form, for a caller that must act on
   * exactly what it deleted.
   */
  delete(organizationId: string, id: string, expectedVersion?: number): Promise<boolean>;
  /** A page of records; null when a `before` / `after` cursor names no record of the organization. */
  list(organizationId: string, query: RecordListQuery): Promise<RecordPage<T> | null>;
}
