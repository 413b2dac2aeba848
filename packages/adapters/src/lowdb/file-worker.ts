import { Worker } from 'node:worker_threads';
import { PRIVATE_FILE, PRIVATE_FOLDER } from './file-modes.js';

/** One file of a committed batch: written to `temp`, then renamed over `path`. */
export interface FileWrite {
  path: string;
  temp: string;
  text: string;
}

/** A task's failure: the error, and how many of its files were written (in order) before it. */
export class FileWorkError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly done: number,
  ) {
    super(message);
  }
}

type Task =
  | { kind: 'write'; writes: FileWrite[] }
  | { kind: 'stage'; files: Array<{ path: string; bytes: Uint8Array }> }
  | { kind: 'fsync'; paths: string[]; folders: string[] }
  | { kind: 'durable'; path: string; temp: string; text: string };

/**
 * The worker's code, plain CommonJS: the adapter runs from TypeScript sources (tests, benchmarks) and from built
 * files alike, and an evaluated worker needs neither. Synchronous file calls, one after another: on its own thread
 * they cost one system call each, where the promise API costs the main thread a dispatch to libuv's pool and a
 * callback per call (open, write, close, rename: 4 per record).
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { dirname } = require('node:path');
const folders = new Set();
const IGNORED_FOLDER_SYNC = new Set(['EPERM', 'EISDIR', 'EINVAL', 'EBADF', 'EACCES']);
function fsync(path, folder) {
  let fd;
  try {
    fd = fs.openSync(path, 'r');
  } catch (error) {
    if (!folder) return; // replaced or removed since: what replaced it was written durably
    if (IGNORED_FOLDER_SYNC.has(error.code)) return;
    throw error;
  }
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    if (!folder || !IGNORED_FOLDER_SYNC.has(error.code)) throw error;
  } finally {
    fs.closeSync(fd);
  }
}
function folderOf(path, folderMode) {
  const folder = dirname(path);
  if (!folders.has(folder)) {
    fs.mkdirSync(folder, { recursive: true, mode: folderMode });
    folders.add(folder);
  }
}
parentPort.on('message', ({ id, task, fileMode, folderMode }) => {
  let done = 0;
  try {
    if (task.kind === 'write') {
      for (const { path, temp, text } of task.writes) {
        folderOf(path, folderMode);
        fs.writeFileSync(temp, text, { mode: fileMode });
        fs.renameSync(temp, path);
        done++;
      }
    } else if (task.kind === 'stage') {
      for (const { path, bytes } of task.files) {
        folderOf(path, folderMode);
        fs.writeFileSync(path, bytes, { mode: fileMode });
        done++;
      }
    } else if (task.kind === 'durable') {
      folderOf(task.path, folderMode);
      const fd = fs.openSync(task.temp, 'w', fileMode);
      try {
        fs.writeFileSync(fd, task.text);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      try {
        fs.renameSync(task.temp, task.path);
      } catch (error) {
        try { fs.unlinkSync(task.temp); } catch {}
        throw error;
      }
      fsync(dirname(task.path), true);
      done = 1;
    } else {
      for (const path of task.paths) fsync(path, false);
      for (const folder of task.folders) fsync(folder, true);
    }
    parentPort.postMessage({ id, done });
  } catch (error) {
    parentPort.postMessage({ id, done, error: { message: String((error && error.message) || error), code: error && error.code } });
  }
});
`;

/**
 * Most files of one message to the thread. A longer list goes in chunks, each sent once the previous one is done, so a
 * task another caller sends meanwhile (another organization's staged file, a small batch's fsyncs it waits for) runs
 * after one chunk of a 60,000-file import's files, not after all of them.
 */
export const CHUNK_FILES = 256;

/**
 * The lowdb adapter's background file work on a thread of its own (started at the first task, stopped by
 * {@link close}): a committed batch's files (a 10,000-document import writes 60,000) and the fsyncs of a small batch.
 * Tasks run one at a time in the order given (long ones in chunks: {@link CHUNK_FILES}). The thread holds the
 * process open only while a task is under way.
 */
export class FileWorker {
  #worker: Worker | undefined;
  #next = 0;
  readonly #waiting = new Map<number, { resolve: (done: number) => void; reject: (error: unknown) => void }>();

  /** Writes each file (temp, then rename; folders made as needed), in order; resolves with how many. */
  write(writes: FileWrite[]): Promise<number> {
    return this.#chunked(writes, (chunk) => ({ kind: 'write', writes: chunk }));
  }

  /** Writes each file's bytes to its path as it is (folders made as needed), in order; resolves with how many. */
  stage(files: Array<{ path: string; bytes: Uint8Array }>): Promise<number> {
    return this.#chunked(files, (chunk) => ({ kind: 'stage', files: chunk }));
  }

  /** `items` in tasks of {@link CHUNK_FILES}, one after another; a failure counts the files of the chunks before it. */
  async #chunked<T>(items: T[], task: (chunk: T[]) => Task): Promise<number> {
    let done = 0;
    for (let i = 0; i < items.length; i += CHUNK_FILES) {
      try {
        done += await this.#run(task(items.slice(i, i + CHUNK_FILES)));
      } catch (error) {
        if (error instanceof FileWorkError) throw new FileWorkError(error.message, error.code, done + error.done);
        throw error;
      }
    }
    return done;
  }

  /** fsyncs each path (gone ones skipped), then each folder (where the platform allows). */
  async fsync(paths: string[], folders: string[]): Promise<void> {
    if (paths.length + folders.length > 0) await this.#run({ kind: 'fsync', paths, folders });
  }

  /**
   * Writes `text` to `path` durably (temp file, fsync, rename, fsync of the folder) in one message: the promise API
   * costs the main thread a dispatch and a callback for each of those 8 calls. For small texts (a record, a group
   * commit's journal): a task waits for the one under way, at most a chunk.
   */
  async durable(path: string, temp: string, text: string): Promise<void> {
    await this.#run({ kind: 'durable', path, temp, text });
  }

  /** Starts the thread now (a first task would wait for its start: tens of milliseconds). */
  start(): void {
    this.#started();
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #run(task: Task): Promise<number> {
    const worker = this.#started();
    const id = ++this.#next;
    return new Promise<number>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      if (this.#waiting.size === 1) worker.ref();
      worker.postMessage({ id, task, fileMode: PRIVATE_FILE, folderMode: PRIVATE_FOLDER });
    });
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (message: { id: number; done: number; error?: { message: string; code?: string } }) => {
      const waiter = this.#waiting.get(message.id);
      if (!waiter) return;
      this.#waiting.delete(message.id);
      if (this.#waiting.size === 0) worker.unref();
      if (message.error) waiter.reject(new FileWorkError(message.error.message, message.error.code, message.done));
      else waiter.resolve(message.done);
    });
    const fail = (error: unknown) => {
      // The thread died (or was stopped): every task under way fails; the next task starts a new thread.
      if (this.#worker === worker) this.#worker = undefined;
      for (const waiter of this.#waiting.values()) waiter.reject(error instanceof Error ? error : new Error(String(error)));
      this.#waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the lowdb file worker stopped (exit code ${code})`)));
    this.#worker = worker;
    return worker;
  }
}
