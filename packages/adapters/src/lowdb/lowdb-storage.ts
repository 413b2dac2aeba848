import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Low } from 'lowdb';
import {
  DocevalsError,
  type FileStore,
  isDocevalsError,
  type RecordCollection,
  type Storage,
  type StoredFile,
  type StoredRecordBase,
  storageError,
  type Versioned,
} from '@docevals/core';
import { copyBytes } from '../shared/copy-bytes.js';
import { idTaken } from '../shared/errors.js';
import { createMutex } from '../shared/mutex.js';
import { pageRecords } from '../shared/page-records.js';
import { ContentFolder } from './content-folder.js';
import { acquireFolderLock, type FolderLock } from './folder-lock.js';
import {
  type CollectionName,
  DurableJsonFile,
  emptyState,
  type LowdbState,
  type RecordEntry,
  withItem,
} from './json-state.js';

/** Options of {@link lowdbStorage}. */
export interface LowdbStorageOptions {
  /**
   * The folder of the store, created when missing. It holds `docevals.json` (records and file reference counts),
   * `files/` (one file per stored document, by organization and file_id) and `.lock` (the pid of the process that
   * has it open). One process at a time: a second one is refused. Relative paths resolve against the working
   * directory.
   * @default none: required
   */
  dir: string;
}

/** A lowdb storage; `dir` is the absolute folder it opened. */
export interface LowdbStorage extends Storage {
  readonly dir: string;
}

/**
 * An embedded store on the local disk, the default of the standalone server: records in a lowdb JSON file
 * (`<dir>/docevals.json`), document bytes in a content-addressed folder beside it (`<dir>/files/`), so that
 * changing an annotation rewrites the JSON db but never a document.
 *
 * Writes are serialized inside the process by a lock around every read-modify-write, and a write returns only once
 * it is on disk (temp file, fsync, rename, fsync of the folder): an acknowledged write survives `kill -9`. The
 * whole db stays in memory, so reads never touch the JSON file. Every write rewrites the JSON file, whose size
 * grows with the records (lowdb's design; docs/benchmarks.md has the figures): for large or multi-process
 * deployments use `redisStorage`.
 *
 * Opening takes `<dir>/.lock` and throws a `storage_error` naming the folder and the pid when another live process
 * holds it (a lock left by a dead process is taken over). lowdb is an optional peer dependency, loaded only here.
 *
 * @example
 * import { createDocevals } from '@docevals/core';
 * import { lowdbStorage } from '@docevals/adapters/lowdb';
 * const storage = lowdbStorage({ dir: './data' }); // throws when another process has ./data open
 * const docevals = createDocevals({ storage });
 * process.on('SIGTERM', () => void storage.close());
 */
export function lowdbStorage(options: LowdbStorageOptions): LowdbStorage {
  const dir = resolve(options.dir);
  const dbPath = join(dir, 'docevals.json');
  const adapter = new DurableJsonFile(dbPath, join(dir, '.docevals.json.tmp'));
  const contents = new ContentFolder(join(dir, 'files'));

  let folderLock: FolderLock;
  try {
    mkdirSync(dir, { recursive: true });
    folderLock = acquireFolderLock(dir, join(dir, '.lock'));
  } catch (error) {
    throw isDocevalsError(error) ? error : storageError('lowdb', `open of "${dir}"`, error);
  }
  let state: LowdbState;
  try {
    state = adapter.readSync() ?? emptyState();
    contents.sweep(state.files);
  } catch (error) {
    folderLock.release();
    throw storageError('lowdb', `open of "${dbPath}"`, error);
  }

  const db = new Low<LowdbState>(adapter, state);
  const writeLock = createMutex();
  let closing: Promise<void> | null = null;

  const assertOpen = (operation: string) => {
    if (closing) throw new DocevalsError('storage_error', `The lowdb storage of "${dir}" was closed; ${operation} was called after close().`);
  };

  /** Writes `next` through lowdb; it becomes what readers see only once it is on disk. */
  const commit = async (next: LowdbState) => {
    db.data = next;
    try {
      await db.write();
    } catch (error) {
      db.data = state;
      throw error;
    }
    state = next;
  };

  /** Runs a read-modify-write alone, wrapping what fs or lowdb throw; a refusal (conflict) passes through as is. */
  const exclusive = <R>(operation: string, task: () => Promise<R>): Promise<R> => {
    try {
      assertOpen(operation);
    } catch (error) {
      return Promise.reject(error);
    }
    return writeLock.run(async () => {
      try {
        return await task();
      } catch (error) {
        throw isDocevalsError(error) ? error : storageError('lowdb', operation, error);
      }
    });
  };

  /** Reads the committed state; no lock, since it only changes once a write is on disk. */
  const read = async <R>(operation: string, task: () => R | Promise<R>): Promise<R> => {
    assertOpen(operation);
    try {
      return await task();
    } catch (error) {
      throw isDocevalsError(error) ? error : storageError('lowdb', operation, error);
    }
  };

  function collection<T extends StoredRecordBase>(name: CollectionName): RecordCollection<T> {
    const entryOf = (organizationId: string, id: string) => state[name].get(organizationId)?.get(id);
    const out = (entry: RecordEntry): Versioned<T> => ({ value: structuredClone(entry.value) as T, version: entry.version });

    return {
      get: (organizationId, id) =>
        read(`${name}.get`, () => {
          const entry = entryOf(organizationId, id);
          return entry ? out(entry) : null;
        }),
      getMany: (organizationId, ids) =>
        read(`${name}.getMany`, () =>
          ids.map((id) => {
            const entry = entryOf(organizationId, id);
            return entry ? out(entry) : null;
          }),
        ),
      insert(record) {
        // Copied now: the caller may change its object before the write lock comes round. Through JSON, so that
        // what reads return now is exactly what they will return after a restart.
        const value = jsonCopy(record);
        return exclusive(`${name}.insert`, async () => {
          if (entryOf(value.organization_id, value.id)) throw idTaken(name, value.id);
          const entry: RecordEntry = { version: 1, value };
          await commit({ ...state, [name]: withItem(state[name], value.organization_id, value.id, entry) });
          return out(entry);
        });
      },
      replace(record, expectedVersion) {
        const value = jsonCopy(record);
        return exclusive(`${name}.replace`, async () => {
          const current = entryOf(value.organization_id, value.id);
          if (!current || current.version !== expectedVersion) return null;
          const entry: RecordEntry = { version: current.version + 1, value };
          await commit({ ...state, [name]: withItem(state[name], value.organization_id, value.id, entry) });
          return out(entry);
        });
      },
      delete: (organizationId, id, expectedVersion) =>
        exclusive(`${name}.delete`, async () => {
          const current = entryOf(organizationId, id);
          if (!current) return false;
          if (expectedVersion !== undefined && current.version !== expectedVersion) return false;
          await commit({ ...state, [name]: withItem(state[name], organizationId, id, undefined) });
          return true;
        }),
      list: (organizationId, query) =>
        read(`${name}.list`, () => {
          const entries = state[name].get(organizationId);
          const values = entries ? Array.from(entries.values(), (e) => e.value as T) : [];
          const page = pageRecords(values, query, (id) => entries?.get(id)?.value as T | undefined);
          return page && { items: page.items.map((r) => structuredClone(r)), has_more: page.has_more };
        }),
    };
  }

  const files: FileStore = {
    async retain(organizationId, fileId, content?: StoredFile) {
      assertOpen('files.retain');
      const metaOf = () => state.files.get(organizationId)?.get(fileId);
      const bytes = content && copyBytes(content.bytes);
      let staged: string | undefined;
      try {
        // Stage the bytes before taking the write lock when the file looks new: the slow part (writing and syncing
        // a large document) then runs beside other writes instead of in front of them.
        if (bytes && !metaOf()) staged = await contents.stage(organizationId, fileId, bytes);
        return await exclusive('files.retain', async () => {
          const meta = metaOf();
          if (meta) {
            await commit({ ...state, files: withItem(state.files, organizationId, fileId, { ...meta, references: meta.references + 1 }) });
            return true;
          }
          if (!content || !bytes) return false;
          staged ??= await contents.stage(organizationId, fileId, bytes);
          await contents.commit(staged, organizationId, fileId);
          staged = undefined;
          try {
            await commit({
              ...state,
              files: withItem(state.files, organizationId, fileId, { references: 1, mime_type: content.mime_type, size: bytes.byteLength }),
            });
          } catch (error) {
            await contents.discard(contents.pathOf(organizationId, fileId));
            throw error;
          }
          return true;
        });
      } catch (error) {
        throw isDocevalsError(error) ? error : storageError('lowdb', 'files.retain', error);
      } finally {
        if (staged) await contents.discard(staged);
      }
    },

    release: (organizationId, fileId) =>
      exclusive('files.release', async () => {
        const meta = state.files.get(organizationId)?.get(fileId);
        if (!meta) return;
        if (meta.references > 1) {
          await commit({ ...state, files: withItem(state.files, organizationId, fileId, { ...meta, references: meta.references - 1 }) });
          return;
        }
        await commit({ ...state, files: withItem(state.files, organizationId, fileId, undefined) });
        // After the db write: a crash in between leaves an unreferenced file, which the next open sweeps away.
        await contents.discard(contents.pathOf(organizationId, fileId));
      }),

    get: (organizationId, fileId) =>
      read('files.get', async () => {
        // The content is read after the db entry, without the write lock: if the file was released (and maybe
        // stored again) meanwhile, the entry has changed too, and the read starts over from the new entry.
        for (let attempt = 0; ; attempt++) {
          const meta = state.files.get(organizationId)?.get(fileId);
          if (!meta) return null;
          const bytes = await contents.read(organizationId, fileId);
          if (bytes !== null && bytes.byteLength === meta.size) return { bytes, mime_type: meta.mime_type };
          if (state.files.get(organizationId)?.get(fileId) !== meta && attempt < 3) continue;
          const path = contents.pathOf(organizationId, fileId);
          throw new Error(
            bytes === null
              ? `the content of ${fileId} is missing from ${path}`
              : `the content of ${fileId} in ${path} has ${bytes.byteLength} bytes, ${meta.size} were stored`,
          );
        }
      }),
  };

  return {
    name: 'lowdb',
    dir,
    evaluations: collection('evaluations'),
    iterations: collection('iterations'),
    processors: collection('processors'),
    files,
    close() {
      // Writes already queued finish first; then the folder is free for another process.
      closing ??= writeLock.run(() => undefined).finally(() => folderLock.release());
      return closing;
    },
  };
}

function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
