import { chmodSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DocevalsError,
  type EvaluationRecord,
  type IterationRecord,
  isDocevalsError,
  type ProcessorRecord,
  type Storage,
} from '@docevals/core';
import { storageClosed } from '@docevals/core/storage-kit';
import { createKeyedMutex } from '../shared/mutex.js';
import type { WriteObserver } from '@docevals/core/storage-kit';
import { ContentFolder } from './content-folder.js';
import { acquireFolderLock, type FolderLock } from './folder-lock.js';
import { Layout } from './layout.js';
import { type LoadedStore, loadStore, type SweepReport } from './load-store.js';
import { type LowdbContext, lowdbChildCollection, lowdbJobCollection, lowdbRecordCollection } from './lowdb-collections.js';
import { lowdbFileStore } from './lowdb-file-store.js';
import { RecordDisk } from './record-disk.js';
import { PRIVATE_FOLDER } from './file-modes.js';

/** Options of {@link lowdbStorage}. */
export interface LowdbStorageOptions {
  /**
   * The folder of the store, created when missing (layout in docs/storage.md: one JSON file per record under
   * `records/`, `children/` and `refs/`, document bytes under `files/`, batches in `journal/` while they are
   * applied, `.lock` with the pid of the process that has it open). One process at a time: a second one is
   * refused. Relative paths resolve against the working directory.
   * @default none: required
   */
  dir: string;
  /**
   * Reclaim at open what a crash can leave between two writes of one service operation: documents and predictions
   * whose parent is gone, iterations that no evaluation lists, file reference counts that do not match the
   * documents holding the file (a file nobody holds is removed). Temp files and tombstones are always removed.
   * Turn it off only for a store written by something other than the docevals service (the conformance suite).
   * @default true
   */
  sweepOrphans?: boolean;
  /** Called after each write with its size in bytes (records, journal); for meters and tests. */
  onWrite?: WriteObserver;
  /**
   * Where failures are reported with their details (file paths included), beside the `storage_error` the caller
   * gets, whose message never names a path.
   * @default console.error
   */
  log?: (message: string, cause: unknown) => void;
}

/** A lowdb storage; `dir` is the absolute folder it opened, `swept` what the open-time sweep reclaimed. */
export interface LowdbStorage extends Storage {
  readonly dir: string;
  readonly swept: SweepReport;
  /**
   * Resolves once every batch committed so far has its files written and flushed (batches are durable when their
   * call resolves, through their journal; their files are written in the background). For backups and tests.
   */
  settle(): Promise<void>;
}

/**
 * An embedded store on the local disk, the default of the standalone server: one JSON file per record (an
 * evaluation, an iteration, a processor, a document, a prediction, a file's reference count), document bytes in a
 * content-addressed folder beside them, so a write costs one record's bytes whatever the size of the store. Every
 * record is kept in memory too, so reads never touch the disk (file contents aside).
 *
 * A single write returns once it is on disk (temp file, fsync, rename, fsync of the folder); a batch
 * (`insertMany`, `deleteAll`, `retainMany`, `releaseMany`) is one commit: one durable journal file, applied
 * then flushed in the background, replayed at the next open if the process stopped first. An acknowledged write
 * survives `kill -9`. Writes of one organization are serialized inside the process (different organizations' run
 * at once); opening takes `<dir>/.lock`, and throws a
 * `storage_error` naming the folder and the pid when another live process holds it (a lock left by a dead process
 * is taken over). A store of the previous layout (`docevals.json`) is converted at its first open. Failures of
 * calls are `storage_error`s without paths; details go to `log`. After `close()`, every call rejects.
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
  const layout = new Layout(dir);
  const log = options.log ?? ((message: string, cause: unknown) => console.error(message, cause ?? ''));
  const contents = new ContentFolder(join(dir, 'files'));

  const folderLock = openFolder(dir, log);
  let loaded: LoadedStore;
  try {
    loaded = loadStore(layout, options.sweepOrphans ?? true, log);
    contents.sweep(loaded.state.refs);
  } catch (error) {
    folderLock.release();
    log(`lowdb: opening "${dir}" failed`, error);
    throw new DocevalsError(
      'storage_error',
      `The lowdb storage could not read the store in "${dir}" (${codeOf(error)}); it was left as it is.`,
      { cause: error },
    );
  }

  // Writes of one organization run one at a time; different organizations' at once, so one organization's queue of
  // writes (its running iterations' predictions and events) never delays another's (issue 26).
  const writeLock = createKeyedMutex();
  const disk = new RecordDisk(layout, loaded.gen, writeLock, options.onWrite, log);
  let closing: Promise<void> | null = null;

  /** The one place where failures become errors for the caller: a storage_error without a path; details logged. */
  const failure = (operation: string, error: unknown): DocevalsError => {
    if (isDocevalsError(error)) return error;
    log(`lowdb: ${operation} failed`, error);
    return new DocevalsError('storage_error', `The lowdb storage failed during ${operation} (${codeOf(error)}).`, { cause: error });
  };

  const ctx: LowdbContext = {
    layout,
    disk,
    state: loaded.state,
    exclusive(operation, task, organizationId) {
      if (closing) return Promise.reject(storageClosed('lowdb'));
      return writeLock.run(async () => {
        try {
          return await task();
        } catch (error) {
          throw failure(operation, error);
        }
      }, organizationId);
    },
    async read(operation, task) {
      if (closing) throw storageClosed('lowdb');
      try {
        return await task();
      } catch (error) {
        throw failure(operation, error);
      }
    },
  };

  return {
    name: 'lowdb',
    dir,
    swept: loaded.swept,
    evaluations: lowdbRecordCollection<EvaluationRecord>(ctx, 'evaluations'),
    documents: lowdbChildCollection(ctx, 'documents', ctx.state.documents),
    iterations: lowdbRecordCollection<IterationRecord>(ctx, 'iterations'),
    predictions: lowdbChildCollection(ctx, 'predictions', ctx.state.predictions),
    processors: lowdbRecordCollection<ProcessorRecord>(ctx, 'processors'),
    events: lowdbChildCollection(ctx, 'events', ctx.state.events),
    jobs: lowdbJobCollection(ctx),
    files: lowdbFileStore(ctx, contents, log),
    settle: () => disk.settle(),
    close() {
      // Writes already queued finish first, then pending batches are flushed; then the folder is free.
      closing ??= writeLock
        .idle()
        .then(() => writeLock.exclusive(() => disk.drain()))
        .catch(() => undefined)
        .finally(() => folderLock.release());
      return closing;
    },
  };
}

/** Makes the store's folder (private to its owner) and takes its lock; a failure is a storage_error. */
function openFolder(dir: string, log: (message: string, cause: unknown) => void): FolderLock {
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER });
    // A folder made before (0755): its data is closed to other users too (nothing inside is reachable through it).
    try {
      chmodSync(dir, PRIVATE_FOLDER);
    } catch {
      // not ours to change (another owner): left as the host made it
    }
    return acquireFolderLock(dir, join(dir, '.lock'));
  } catch (error) {
    if (isDocevalsError(error)) throw error;
    log(`lowdb: opening "${dir}" failed`, error);
    throw new DocevalsError('storage_error', `The lowdb storage could not open its folder "${dir}" (${codeOf(error)}).`, { cause: error });
  }
}

/** A short, path-free reason: the errno code (`ENOSPC`, `EACCES`) or the error's name. */
function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'unknown error';
}
