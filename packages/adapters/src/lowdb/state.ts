import type { DocumentRecord, IterationEventRecord, PredictionRecord, StoredRecordBase } from '@docevals/core';
import { ChildFamilies } from '@docevals/core/storage-kit';
import type { RecordCollectionName } from './layout.js';

/** A stored record with its compare-and-set version. */
export interface RecordEntry {
  version: number;
  value: StoredRecordBase;
}

/** What the store knows of a file; its bytes live in the files folder. */
export interface FileMeta {
  references: number;
  mime_type: string;
  /** Checked on read, so a truncated content file is reported rather than served. */
  size: number;
}

/** organization id -> id -> item. Maps, so that ids such as `__proto__` or `constructor` are plain keys. */
export type ByOrganization<V> = Map<string, Map<string, V>>;

/**
 * Everything the store holds, in memory (reads never touch the disk, except file contents). Changed only once the
 * write that makes the change is on disk.
 */
export interface LowdbState {
  records: Record<RecordCollectionName, ByOrganization<RecordEntry>>;
  documents: ChildFamilies<DocumentRecord>;
  predictions: ChildFamilies<PredictionRecord>;
  events: ChildFamilies<IterationEventRecord>;
  refs: ByOrganization<FileMeta>;
}

export function emptyState(): LowdbState {
  return {
    records: { evaluations: new Map(), iterations: new Map(), processors: new Map(), jobs: new Map() },
    documents: new ChildFamilies('documents'),
    predictions: new ChildFamilies('predictions'),
    events: new ChildFamilies('events'),
    refs: new Map(),
  };
}

export function getItem<V>(outer: ByOrganization<V>, organizationId: string, id: string): V | undefined {
  return outer.get(organizationId)?.get(id);
}

export function setItem<V>(outer: ByOrganization<V>, organizationId: string, id: string, item: V | undefined): void {
  let inner = outer.get(organizationId);
  if (item === undefined) {
    inner?.delete(id);
    if (inner?.size === 0) outer.delete(organizationId);
    return;
  }
  if (!inner) outer.set(organizationId, (inner = new Map<string, V>()));
  inner.set(id, item);
}
