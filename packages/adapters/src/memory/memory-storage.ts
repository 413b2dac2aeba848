import type {
  FileStore,
  RecordCollection,
  RecordListQuery,
  RecordPage,
  Storage,
  StoredFile,
  StoredRecordBase,
  Versioned,
} from '@docevals/core';
import { copyBytes } from '../shared/copy-bytes.js';
import { idTaken } from '../shared/errors.js';
import { pageRecords } from '../shared/page-records.js';

/**
 * A store that lives in this process's memory and ends with it: for tests, demos and hosts that persist elsewhere.
 * Records sit in one Map per organization and are copied with `structuredClone` on the way in and out, so a caller
 * never holds a reference into the store. Every method checks and writes without an `await` in between, which
 * makes each one atomic and `replace` a true compare-and-set.
 *
 * @example
 * import { createDocevals } from '@docevals/core';
 * import { memoryStorage } from '@docevals/adapters/memory';
 * const docevals = createDocevals({ storage: memoryStorage() });
 */
export function memoryStorage(): Storage {
  return {
    name: 'memory',
    evaluations: memoryCollection('evaluations'),
    iterations: memoryCollection('iterations'),
    processors: memoryCollection('processors'),
    files: memoryFileStore(),
    // Nothing to release; the data stays readable, like a closed connection whose process is still running.
    close: async () => undefined,
  };
}

interface Entry<T> {
  value: T;
  version: number;
}

function memoryCollection<T extends StoredRecordBase>(collection: string): RecordCollection<T> {
  const byOrganization = new Map<string, Map<string, Entry<T>>>();
  const recordsOf = (organizationId: string, create = false) => {
    let records = byOrganization.get(organizationId);
    if (!records && create) byOrganization.set(organizationId, (records = new Map()));
    return records;
  };
  const out = (entry: Entry<T>): Versioned<T> => ({ value: structuredClone(entry.value), version: entry.version });

  return {
    async get(organizationId, id) {
      const entry = recordsOf(organizationId)?.get(id);
      return entry ? out(entry) : null;
    },
    async getMany(organizationId, ids) {
      const records = recordsOf(organizationId);
      return ids.map((id) => {
        const entry = records?.get(id);
        return entry ? out(entry) : null;
      });
    },
    async insert(record) {
      const records = recordsOf(record.organization_id, true)!;
      if (records.has(record.id)) throw idTaken(collection, record.id);
      const entry = { value: structuredClone(record), version: 1 };
      records.set(record.id, entry);
      return out(entry);
    },
    async replace(record, expectedVersion) {
      const records = recordsOf(record.organization_id);
      const current = records?.get(record.id);
      if (!records || !current || current.version !== expectedVersion) return null;
      const entry = { value: structuredClone(record), version: current.version + 1 };
      records.set(record.id, entry);
      return out(entry);
    },
    async delete(organizationId, id, expectedVersion) {
      const records = recordsOf(organizationId);
      const current = records?.get(id);
      if (!records || !current) return false;
      if (expectedVersion !== undefined && current.version !== expectedVersion) return false;
      records.delete(id);
      if (records.size === 0) byOrganization.delete(organizationId);
      return true;
    },
    async list(organizationId: string, query: RecordListQuery): Promise<RecordPage<T> | null> {
      const records = recordsOf(organizationId) ?? new Map<string, Entry<T>>();
      const values = Array.from(records.values(), (e) => e.value);
      const page = pageRecords(values, query, (id) => records.get(id)?.value);
      return page && { items: page.items.map((r) => structuredClone(r)), has_more: page.has_more };
    },
  };
}

interface FileEntry {
  bytes: Uint8Array;
  mime_type: string;
  references: number;
}

function memoryFileStore(): FileStore {
  const byOrganization = new Map<string, Map<string, FileEntry>>();

  return {
    async retain(organizationId, fileId, content?: StoredFile) {
      let files = byOrganization.get(organizationId);
      const existing = files?.get(fileId);
      if (existing) {
        existing.references++;
        return true;
      }
      if (!content) return false;
      if (!files) byOrganization.set(organizationId, (files = new Map()));
      files.set(fileId, { bytes: copyBytes(content.bytes), mime_type: content.mime_type, references: 1 });
      return true;
    },
    async release(organizationId, fileId) {
      const files = byOrganization.get(organizationId);
      const entry = files?.get(fileId);
      if (!files || !entry) return;
      if (--entry.references > 0) return;
      files.delete(fileId);
      if (files.size === 0) byOrganization.delete(organizationId);
    },
    async get(organizationId, fileId) {
      const entry = byOrganization.get(organizationId)?.get(fileId);
      return entry ? { bytes: copyBytes(entry.bytes), mime_type: entry.mime_type } : null;
    },
  };
}
