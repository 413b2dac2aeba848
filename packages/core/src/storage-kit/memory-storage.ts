import type {
  ChildCollection,
  ChildRecordBase,
  ChildTotals,
  FileStore,
  JobCollection,
  JobRecord,
  RecordCollection,
  RecordListQuery,
  RecordPage,
  Storage,
  StoredFile,
  StoredRecordBase,
  Versioned,
} from '../storage.js';
import { ChildFamilies } from './child-families.js';
import { copyBytes } from './copy-bytes.js';
import { idTaken, storageClosed } from './errors.js';
import { pageRecords } from './page-records.js';
import type { WriteObserver } from './write-observer.js';

/** Options of {@link memoryStorage}. */
export interface MemoryStorageOptions {
  /** Called after each write with the size of the records written (JSON bytes); for meters and tests. */
  onWrite?: WriteObserver;
}

/**
 * A store that lives in this process's memory and ends with it: for tests, demos and hosts that persist elsewhere.
 * Records sit in Maps per organization (children in one insertion-ordered Map per parent, with running totals) and
 * each record is copied with `structuredClone` on the way in and out, so a caller never holds a reference into the
 * store. Records are small (one document, one prediction), so a read copies one document's worth, never an
 * evaluation. Every method checks and writes without an `await` in between, which makes each one atomic and
 * `replace` / `put` true compare-and-sets. After `close()` every call rejects with a `storage_error`.
 *
 * @example
 * import { createDocevals } from '@docevals/core';
 * import { memoryStorage } from '@docevals/adapters/memory';
 * const docevals = createDocevals({ storage: memoryStorage() });
 */
export function memoryStorage(options: MemoryStorageOptions = {}): Storage {
  const state: MemoryState = { closed: false, onWrite: options.onWrite };
  return {
    name: 'memory',
    evaluations: memoryCollection(state, 'evaluations'),
    documents: memoryChildCollection(state, 'documents'),
    iterations: memoryCollection(state, 'iterations'),
    predictions: memoryChildCollection(state, 'predictions'),
    processors: memoryCollection(state, 'processors'),
    events: memoryChildCollection(state, 'events'),
    jobs: memoryJobCollection(state),
    files: memoryFileStore(state),
    close: async () => {
      state.closed = true;
    },
  };
}

interface MemoryState {
  closed: boolean;
  onWrite: WriteObserver | undefined;
}

function checkOpen(state: MemoryState): void {
  if (state.closed) throw storageClosed('memory');
}

function report(state: MemoryState, collection: string, values: readonly unknown[]): void {
  if (!state.onWrite) return;
  let bytes = 0;
  for (const value of values) bytes += Buffer.byteLength(JSON.stringify(value));
  state.onWrite({ collection, bytes });
}

interface Entry<T> {
  value: T;
  version: number;
}

const out = <T>(entry: Entry<T>): Versioned<T> => ({ value: structuredClone(entry.value), version: entry.version });

/**
 * The jobs: a record collection whose capped insert counts and inserts in one synchronous step (the base `insert`
 * runs to its write before it first yields), so nothing can come in between.
 */
function memoryJobCollection(state: MemoryState): JobCollection {
  const byOrganization = new Map<string, Map<string, Entry<JobRecord>>>();
  const base = memoryCollection<JobRecord>(state, 'jobs', byOrganization);
  return {
    ...base,
    insertWithinCap(record, cap) {
      try {
        checkOpen(state);
        // A taken id is a conflict whatever the count (as on every adapter): the insert says so.
        if (byOrganization.get(record.organization_id)?.has(record.id)) return base.insert(record);
        let count = 0;
        for (const entry of byOrganization.get(record.organization_id)?.values() ?? []) {
          if (entry.value.iteration_organization_id === record.iteration_organization_id) count++;
        }
        return count < cap ? base.insert(record) : Promise.resolve(null);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

function memoryCollection<T extends StoredRecordBase>(
  state: MemoryState,
  collection: string,
  byOrganization = new Map<string, Map<string, Entry<T>>>(),
): RecordCollection<T> {
  const recordsOf = (organizationId: string, create = false) => {
    let records = byOrganization.get(organizationId);
    if (!records && create) byOrganization.set(organizationId, (records = new Map<string, Entry<T>>()));
    return records;
  };

  return {
    async get(organizationId, id) {
      checkOpen(state);
      const entry = recordsOf(organizationId)?.get(id);
      return entry ? out(entry) : null;
    },
    async getMany(organizationId, ids) {
      checkOpen(state);
      const records = recordsOf(organizationId);
      return ids.map((id) => {
        const entry = records?.get(id);
        return entry ? out(entry) : null;
      });
    },
    async insert(record) {
      checkOpen(state);
      const records = recordsOf(record.organization_id, true)!;
      if (records.has(record.id)) throw idTaken(collection, record.id);
      const entry = { value: structuredClone(record), version: 1 };
      records.set(record.id, entry);
      report(state, collection, [record]);
      return out(entry);
    },
    async replace(record, expectedVersion) {
      checkOpen(state);
      const records = recordsOf(record.organization_id);
      const current = records?.get(record.id);
      if (!records || !current || current.version !== expectedVersion) return null;
      const entry = { value: structuredClone(record), version: current.version + 1 };
      records.set(record.id, entry);
      report(state, collection, [record]);
      return out(entry);
    },
    async delete(organizationId, id, expectedVersion) {
      checkOpen(state);
      const records = recordsOf(organizationId);
      const current = records?.get(id);
      if (!records || !current) return false;
      if (expectedVersion !== undefined && current.version !== expectedVersion) return false;
      records.delete(id);
      if (records.size === 0) byOrganization.delete(organizationId);
      report(state, collection, []);
      return true;
    },
    async list(organizationId: string, query: RecordListQuery): Promise<RecordPage<T> | null> {
      checkOpen(state);
      const records = recordsOf(organizationId) ?? new Map<string, Entry<T>>();
      const values = Array.from(records.values(), (e) => e.value);
      const page = pageRecords(values, query, (id) => records.get(id)?.value);
      return page && { items: page.items.map((r) => structuredClone(r)), has_more: page.has_more };
    },
  };
}

function memoryChildCollection<T extends ChildRecordBase>(state: MemoryState, collection: string): ChildCollection<T> {
  const families = new ChildFamilies<T>(collection);

  return {
    async get(organizationId, parentId, id) {
      checkOpen(state);
      const entry = families.entry(organizationId, parentId, id);
      return entry ? out(entry) : null;
    },
    async getMany(organizationId, parentId, ids) {
      checkOpen(state);
      return ids.map((id) => {
        const entry = families.entry(organizationId, parentId, id);
        return entry ? out(entry) : null;
      });
    },
    async insertMany(records) {
      checkOpen(state);
      if (records.length === 0) return [];
      const firstSeq = families.checkInsertMany(records);
      // Copied before anything is stored, so a record that cannot be cloned leaves the parent untouched.
      const entries = records.map((record, i) => ({ value: structuredClone(record), version: 1, seq: firstSeq + i }));
      for (const entry of entries) families.set(entry);
      report(state, collection, records);
      return entries.map(out);
    },
    async put(record, expectedVersion) {
      checkOpen(state);
      const current = families.entry(record.organization_id, record.parent_id, record.id);
      if (!ChildFamilies.mayPut(current, expectedVersion)) return null;
      const seq = current?.seq ?? families.nextSeq(record.organization_id, record.parent_id);
      const entry = { value: structuredClone(record), version: (current?.version ?? 0) + 1, seq };
      families.set(entry);
      report(state, collection, [record]);
      return out(entry);
    },
    async putMany(batch) {
      checkOpen(state);
      const conflicts = families.putManyConflicts(batch);
      if (conflicts.length > 0) return { ok: false, conflicts };
      // Copied before anything is stored, so a record that cannot be cloned leaves the parent untouched.
      const entries = families.putManyEntries(batch, (value) => structuredClone(value));
      for (const entry of entries) families.set(entry);
      if (entries.length > 0) report(state, collection, batch.map((e) => e.record));
      return { ok: true, records: entries.map(out) };
    },
    async delete(organizationId, parentId, id, expectedVersion) {
      checkOpen(state);
      const current = families.entry(organizationId, parentId, id);
      if (!current) return false;
      if (expectedVersion !== undefined && current.version !== expectedVersion) return false;
      families.remove(organizationId, parentId, id);
      report(state, collection, []);
      return true;
    },
    async deleteAll(organizationId, parentId) {
      checkOpen(state);
      const removed = families.removeAll(organizationId, parentId);
      report(state, collection, []);
      return removed.length;
    },
    async list(organizationId, parentId, query) {
      checkOpen(state);
      return families.page(organizationId, parentId, query.limit, query.after, (value) => structuredClone(value));
    },
    async totals(organizationId, parentId): Promise<ChildTotals> {
      checkOpen(state);
      return families.totals(organizationId, parentId);
    },
  };
}

interface FileEntry {
  bytes: Uint8Array;
  mime_type: string;
  references: number;
}

function memoryFileStore(state: MemoryState): FileStore {
  const byOrganization = new Map<string, Map<string, FileEntry>>();
  /** A stored file as read: a copy of its bytes. */
  const fileOf = (organizationId: string, fileId: string): StoredFile | null => {
    const entry = byOrganization.get(organizationId)?.get(fileId);
    return entry ? { bytes: copyBytes(entry.bytes), mime_type: entry.mime_type } : null;
  };

  const retainOne = (organizationId: string, fileId: string, content?: StoredFile): boolean => {
    let files = byOrganization.get(organizationId);
    const existing = files?.get(fileId);
    if (existing) {
      existing.references++;
      return true;
    }
    if (!content) return false;
    if (!files) byOrganization.set(organizationId, (files = new Map<string, FileEntry>()));
    files.set(fileId, { bytes: copyBytes(content.bytes), mime_type: content.mime_type, references: 1 });
    return true;
  };
  const releaseOne = (organizationId: string, fileId: string): void => {
    const files = byOrganization.get(organizationId);
    const entry = files?.get(fileId);
    if (!files || !entry) return;
    if (--entry.references > 0) return;
    files.delete(fileId);
    if (files.size === 0) byOrganization.delete(organizationId);
  };
  const reportFiles = (entries: ReadonlyArray<{ content?: StoredFile }>) => {
    if (!state.onWrite) return;
    let bytes = 0;
    for (const entry of entries) bytes += entry.content?.bytes.byteLength ?? 0;
    state.onWrite({ collection: 'files', bytes });
  };

  return {
    async retain(organizationId, fileId, content?: StoredFile) {
      checkOpen(state);
      const retained = retainOne(organizationId, fileId, content);
      reportFiles([{ content }]);
      return retained;
    },
    async release(organizationId, fileId) {
      checkOpen(state);
      releaseOne(organizationId, fileId);
    },
    async get(organizationId, fileId) {
      checkOpen(state);
      return fileOf(organizationId, fileId);
    },
    async getMany(organizationId, fileIds) {
      checkOpen(state);
      return fileIds.map((fileId) => fileOf(organizationId, fileId));
    },
    async retainMany(organizationId, entries) {
      checkOpen(state);
      // Synchronous from here on: nothing else runs between the first and the last reference.
      const retained = entries.map((entry) => retainOne(organizationId, entry.fileId, entry.content));
      reportFiles(entries);
      return retained;
    },
    async releaseMany(organizationId, fileIds) {
      checkOpen(state);
      for (const fileId of fileIds) releaseOne(organizationId, fileId);
    },
  };
}
