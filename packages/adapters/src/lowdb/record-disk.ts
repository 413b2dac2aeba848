import { execFile, execFileSync } from 'node:child_process';
import { fsyncSync, closeSync, openSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import pLimit from 'p-limit';
import type { KeyedMutex } from '../shared/mutex.js';
import type { WriteObserver } from '@docevals/core/storage-kit';
import { removeFile, syncFolder, writeFileDurably } from './durable-write.js';
import type { Layout } from './layout.js';
import { PRIVATE_FILE, PRIVATE_FOLDER } from './file-modes.js';
import { FileWorker, FileWorkError, type FileWrite } from './file-worker.js';
import { fileText, journalLines, type JournalEntry } from './journal.js';

/** One file a batch writes: its path and the body (without `gen`, which the commit adds). */
export interface BatchWrite {
  path: string;
  body: object;
  /**
   * The file's `value` as JSON text already (the caller serialized the record once to copy it): written after the
   * body's fields as is, not serialized again. `body` then holds no `value`.
   */
  valueText?: string;
}

/** A staged file a batch moves into place (the content of a new stored file). */
export interface BatchMove {
  from: string;
  to: string;
}

/** A committed batch as its background application takes it: {@link JournalEntry} with absolute paths. */
type AppliedBatch = JournalEntry;
/**
 * The most paths a flush makes durable one fsync at a time; above, one `sync -f` of the file system (see
 * {@link RecordDisk.flush}).
 */
export const FSYNC_EACH_UP_TO = 64;

/** The largest text {@link RecordDisk} writes durably on the file worker's thread (see `#durable`). */
const DURABLE_ON_THREAD_UP_TO = 256 * 1024;

/**
 * File operations a committed batch's background work on the main thread (its moves and deletes; its writes and
 * fsyncs are the file worker's) keeps in flight at once: libuv runs every file operation of the process on 4 threads
 * from one queue, and the writes callers wait for (another organization's, issue 26) need those threads too.
 */
const BACKGROUND_IO = 2;

/** Reports a failure that is not the caller's (a background sync, a best-effort unlink): path and cause. */
export type DiskLog = (message: string, cause: unknown) => void;

/**
 * Every write of the lowdb adapter goes through here, so that each one is one commit:
 * - a single record: its own file, written durably (temp file, fsync, rename, fsync of the folder);
 * - a batch (insertMany, deleteAll, retainMany, releaseMany): one journal file written durably is the commit point;
 *   its records are then written with plain writes, flushed in the background (an fsync per file and folder; one
 *   `sync -f` of the file system for a batch of many files, where available) and the journal is removed. A process
 *   killed in between leaves the journal, which the next open replays. Every file carries the `gen` of its commit,
 *   so a replay never overwrites a newer write; a delete made while a journal is pending leaves a tombstone for the
 *   same reason.
 */
export class RecordDisk {
  readonly #layout: Layout;
  readonly #lock: KeyedMutex;
  readonly #onWrite: WriteObserver | undefined;
  readonly #log: DiskLog;
  #gen: number;
  #temp = 0;
  #closed = false;
  readonly #folders = new Set<string>();
  /** Journals written and applied but not yet flushed: gen -> the retire under way. */
  readonly #pending = new Map<number, Promise<void>>();
  /** Paths holding a tombstone this process wrote; removed once no journal is pending. */
  readonly #tombstones = new Set<string>();
  /**
   * Paths a pending journal writes, deletes or moves into, with the application that does it (the latest one when
   * several): a single write of such a path waits for it, and a delete there leaves a tombstone.
   */
  readonly #pendingPaths = new Map<string, Promise<void>>();
  /** Applications of committed journals run one after another, in commit order, in the background. */
  #applyChain: Promise<void> = Promise.resolve();
  /** Paths written by journals not yet retired, with how many: a delete of one leaves a tombstone. */
  readonly #writtenByPending = new Map<string, number>();
  /** The `sync -f` running now, and the one that will start after it (shared by every flush asked for meanwhile). */
  #runningSync: Promise<boolean> | null = null;
  #nextSync: Promise<boolean> | null = null;
  /** A committed batch's files and a small batch's fsyncs, on a thread of their own. */
  readonly #files = new FileWorker();

  constructor(layout: Layout, gen: number, lock: KeyedMutex, onWrite: WriteObserver | undefined, log: DiskLog) {
    this.#layout = layout;
    this.#gen = gen;
    this.#lock = lock;
    this.#onWrite = onWrite;
    this.#log = log;
    // Single writes and small commits go through the thread: started with the store, not at the first of them.
    this.#files.start();
  }

  /** Writes one file durably (`valueText`: its `value`, see {@link BatchWrite}). Call with the store's write lock held. */
  async writeOne(collection: string, path: string, body: object, valueText?: string): Promise<void> {
    await this.settled(path);
    const text = fileText(++this.#gen, valueText === undefined ? { body } : { body, valueText });
    await this.#durable(path, text);
    this.#tombstones.delete(path);
    this.#report(collection, text.length);
  }

  /** Deletes one file durably (a tombstone while a pending journal writes it). Call with the write lock held. */
  async deleteOne(collection: string, path: string): Promise<void> {
    await this.settled(path);
    const gen = ++this.#gen;
    if (this.#writtenByPending.has(path)) {
      const text = JSON.stringify({ gen, deleted: true });
      await this.#durable(path, text);
      this.#tombstones.add(path);
      this.#report(collection, text.length);
      return;
    }
    await removeFile(path);
    await syncFolder(dirname(path));
    this.#report(collection, 0);
  }

  /**
   * Commits a batch as one durable journal write; once this resolves the batch is committed (the caller updates
   * what readers see). Its files are then written in the background, after earlier batches, and flushed; a path
   * it covers is {@link settled} once written. A failure there is logged: the journal stays and replays at the next
   * open. Call with the write lock held. `moves` must already be on disk (see {@link flush}).
   */
  async commitBatch(collection: string, writes: readonly BatchWrite[], deletes: readonly string[], moves: readonly BatchMove[] = []): Promise<void> {
    const gen = ++this.#gen;
    // In memory with absolute paths (what the application writes), in the journal relative to the folder.
    const entry: AppliedBatch = { gen, writes: writes.map((w) => ({ path: w.path, text: fileText(gen, w) })), deletes: [...deletes], moves: [...moves] };
    const relative = (path: string) => this.#layout.toRelative(path);
    const journalPath = this.#layout.journalEntry(gen);
    const lines = journalLines({
      gen,
      writes: entry.writes.map((w) => ({ path: relative(w.path), text: w.text })),
      deletes: deletes.map(relative),
      moves: moves.map((m) => ({ from: relative(m.from), to: relative(m.to) })),
    });
    this.#report(collection, await this.#durable(journalPath, lines));

    const covered = [...writes.map((w) => w.path), ...deletes, ...moves.map((m) => m.to)];
    const applied = this.#applyChain.then(() => this.#apply(entry));
    const done = applied.then(
      () => undefined,
      () => undefined,
    );
    this.#applyChain = done;
    for (const path of covered) this.#pendingPaths.set(path, done);
    this.#pending.set(
      gen,
      applied.then(
        (touched) => this.#retire(gen, journalPath, touched, covered, writes.map((w) => w.path), done),
        (error: unknown) => {
          // Committed all the same: the journal stays (never retired in this process) and replays at the next open.
          this.#log('lowdb: applying a committed batch failed; it will be replayed at the next open', error);
        },
      ),
    );
  }

  /**
   * Runs `task` in the background once the batches committed so far are written (best-effort cleanup, such as
   * removing released file contents); a write of one of `paths` waits for it ({@link settled}); `close()` too.
   */
  afterBatches(paths: readonly string[], task: () => Promise<void>): void {
    const done = this.#applyChain.then(task).catch((error: unknown) => this.#log('lowdb: a background cleanup failed', error));
    this.#applyChain = done;
    for (const path of paths) this.#pendingPaths.set(path, done);
    void done.then(() => {
      for (const path of paths) if (this.#pendingPaths.get(path) === done) this.#pendingPaths.delete(path);
    });
  }

  /** Resolves once no pending batch still has to write `path` (at once when none does). */
  settled(path: string): Promise<void> | undefined {
    return this.#pendingPaths.get(path);
  }

  /**
   * Makes files written with plain writes durable: an fsync of each file and then of each folder (the renames), on
   * the file worker's thread, for a batch of up to {@link FSYNC_EACH_UP_TO} paths (a group commit of a few documents: a
   * `sync -f` process per commit was 18-27 % of lowdb's CPU per document, forking a server's heap); one `sync -f` of
   * the file system for a larger batch (a bulk insert of thousands of files) where available. Flushes asked for while
   * a `sync -f` runs share the next one (it starts after the running one ends, so it covers every file written before
   * the request): many large batches cost one or two syncs in flight, not one process each.
   */
  async flush(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    if (paths.length > FSYNC_EACH_UP_TO && (await this.#sharedSync())) return;
    await this.#files.fsync([...paths], [...new Set(paths.map((p) => dirname(p)))]);
  }

  /** A `sync -f` that starts after this call: the one already waiting to start, else a new one after the running one. */
  #sharedSync(): Promise<boolean> {
    if (this.#nextSync) return this.#nextSync;
    const next = (this.#runningSync ?? Promise.resolve(true)).then(() => {
      this.#nextSync = null;
      const run = syncFileSystem(this.#layout.dir);
      this.#runningSync = run;
      void run.then(() => {
        if (this.#runningSync === run) this.#runningSync = null;
      });
      return run;
    });
    this.#nextSync = next;
    return next;
  }

  /**
   * {@link stage} for many files at once, on the file worker's thread; `staged(i, temp)` is called for each file
   * written (in order), also when a later one fails (the caller discards what was staged).
   */
  async stageMany(files: ReadonlyArray<{ finalPath: string; bytes: Uint8Array }>, staged: (index: number, temp: string) => void): Promise<void> {
    const temps = files.map((file) => ({ path: this.#tempOf(file.finalPath), bytes: file.bytes }));
    let done = 0;
    try {
      done = await this.#files.stage(temps);
    } catch (error) {
      if (error instanceof FileWorkError) done = error.done;
      throw error;
    } finally {
      for (let i = 0; i < done; i++) staged(i, temps[i]!.path);
    }
  }

  /** Writes `bytes` to a temp file without fsync (for {@link flush} then a batch move); returns its path. Concurrent calls are fine. */
  async stage(finalPath: string, bytes: Uint8Array): Promise<string> {
    await this.#folder(dirname(finalPath));
    const temp = this.#tempOf(finalPath);
    await writeFile(temp, bytes, { mode: PRIVATE_FILE });
    return temp;
  }

  /** Resolves once every batch committed so far is written, flushed and its journal removed. */
  async settle(): Promise<void> {
    await this.#applyChain;
    await Promise.all([...this.#pending.values()]);
  }

  /** Waits for every pending journal to be flushed and removed; no background work starts after it. */
  async drain(): Promise<void> {
    this.#closed = true;
    await this.#applyChain;
    await Promise.all([...this.#pending.values()].map((p) => Promise.race([p, new Promise((r) => setTimeout(r, 30_000))])));
    await this.#files.close();
  }

  async #apply(entry: AppliedBatch): Promise<string[]> {
    // Each path appears once in a batch, so the files are written side by side (bounded), not one after another.
    const limit = pLimit(BACKGROUND_IO);
    const touched: string[] = [];
    await Promise.all(
      entry.moves.map((move) =>
        limit(async () => {
          const to = move.to;
          await rename(move.from, to);
          touched.push(to);
        }),
      ),
    );
    // The records' files on the file worker's thread (owner-only, as every data file), one after another.
    const writes: FileWrite[] = entry.writes.map(({ path, text }) => ({ path, temp: this.#tempOf(path), text }));
    const written = (count: number) => {
      for (const { path } of writes.slice(0, count)) {
        this.#tombstones.delete(path);
        this.#writtenByPending.set(path, (this.#writtenByPending.get(path) ?? 0) + 1);
        touched.push(path);
      }
    };
    try {
      written(await this.#files.write(writes));
    } catch (error) {
      if (error instanceof FileWorkError) written(error.done);
      throw error;
    }
    const tombstone = JSON.stringify({ gen: entry.gen, deleted: true });
    await Promise.all(
      entry.deletes.map((path) =>
        limit(async () => {
          if (this.#writtenByPending.has(path)) {
            // A pending journal wrote this path: its replay must not bring the record back.
            const temp = this.#tempOf(path);
            await writeFile(temp, tombstone, { mode: PRIVATE_FILE });
            await rename(temp, path);
            this.#tombstones.add(path);
            touched.push(path);
          } else {
            await removeFile(path);
            touched.push(dirname(path));
          }
        }),
      ),
    );
    return touched;
  }

  async #retire(gen: number, journalPath: string, touched: string[], covered: string[], written: string[], done: Promise<void>): Promise<void> {
    for (const path of covered) if (this.#pendingPaths.get(path) === done) this.#pendingPaths.delete(path);
    try {
      await this.flush(touched);
      await removeFile(journalPath);
    } catch (error) {
      this.#log('lowdb: flushing a batch failed; its journal stays and replays at the next open', error);
      return; // stays pending: deletes of its paths keep leaving tombstones
    }
    for (const path of written) {
      const count = this.#writtenByPending.get(path);
      if (count === undefined) continue;
      if (count <= 1) this.#writtenByPending.delete(path);
      else this.#writtenByPending.set(path, count - 1);
    }
    this.#pending.delete(gen);
    if (this.#writtenByPending.size === 0 && this.#tombstones.size > 0) {
      // Alone: a write of another organization must not land on a tombstone's path while it is being removed.
      void this.#lock.exclusive(() => this.#clearTombstones());
    }
  }

  async #clearTombstones(): Promise<void> {
    // After close another process may own the folder: tombstones left now are removed at its open.
    if (this.#closed || this.#writtenByPending.size > 0) return;
    const paths = [...this.#tombstones];
    this.#tombstones.clear();
    // Not durable, and need not be: a tombstone left behind is removed at the next open.
    const limit = pLimit(16);
    await Promise.all(paths.map((path) => limit(() => removeFile(path).catch(() => undefined))));
  }

  /**
   * Writes a file durably: a small text (up to {@link DURABLE_ON_THREAD_UP_TO} characters: a record, a group commit's
   * journal) in one task of the file worker's thread; a larger one (a bulk insert's journal) from this thread through
   * libuv's pool, beside the file worker's tasks (another organization's small writes do not wait for it). Answers
   * the characters written (what the write observer reports).
   */
  async #durable(path: string, data: string | readonly string[]): Promise<number> {
    const size = typeof data === 'string' ? data.length : data.reduce((n, line) => n + line.length + 1, -1);
    if (size <= DURABLE_ON_THREAD_UP_TO) {
      await this.#files.durable(path, this.#tempOf(path), typeof data === 'string' ? data : data.join('\n'));
    } else {
      await this.#folder(dirname(path));
      await writeFileDurably(path, this.#tempOf(path), data);
    }
    return size;
  }

  async #folder(folder: string): Promise<void> {
    if (this.#folders.has(folder)) return;
    await mkdir(folder, { recursive: true, mode: PRIVATE_FOLDER });
    this.#folders.add(folder);
  }

  /** A temp name beside `path`: starts with a dot and ends with `.tmp`, which the open-time sweep removes. */
  #tempOf(path: string): string {
    const name = path.slice(dirname(path).length + 1);
    return `${dirname(path)}/.${name}.${process.pid}.${++this.#temp}.tmp`;
  }

  #report(collection: string, bytes: number): void {
    this.#onWrite?.({ collection, bytes });
  }
}

/** `sync -f <dir>` (syncfs of the file system holding `dir`, GNU coreutils); false where it is not available. */
function syncFileSystem(dir: string): Promise<boolean> {
  if (process.platform !== 'linux') return Promise.resolve(false);
  return new Promise((resolve) => {
    execFile('sync', ['-f', dir], { timeout: 120_000 }, (error) => resolve(!error));
  });
}

/** {@link syncFileSystem} for the open-time replay, blocking; falls back to an fsync of each path. */
export function flushSync(dir: string, paths: readonly string[]): void {
  if (paths.length === 0) return;
  if (process.platform === 'linux') {
    try {
      execFileSync('sync', ['-f', dir], { timeout: 120_000, stdio: 'ignore' });
      return;
    } catch {
      // fall through
    }
  }
  for (const path of paths) {
    try {
      const fd = openSync(path, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // gone: nothing to flush
    }
  }
}
