import type { Storage } from '@docevals/core';
import { afterEach, describe } from 'vitest';
import { batchChildTests } from './batch-child-tests.js';
import { batchFileTests } from './batch-file-tests.js';
import { childTests } from './child-tests.js';
import { closedTests } from './closed-tests.js';
import { concurrencyTests } from './concurrency-tests.js';
import type { ConformanceContext } from './context.js';
import { fileTests } from './file-tests.js';
import { jobTests } from './job-tests.js';
import { listTests } from './list-tests.js';
import { persistenceTests } from './persistence-tests.js';
import { recordTests } from './record-tests.js';
import { writeSizeTests } from './write-size-tests.js';

/** Options of {@link runStorageConformance}. */
export interface StorageConformanceOptions {
  /** Names the suite in the test report (`storage conformance: <name>`). */
  name: string;
  /**
   * A fresh, empty store for one test. Called once per test; the suite closes every store it got after each test.
   * Adapters backed by a shared server should give each store its own namespace (a unique key prefix).
   */
  create: () => Storage | Promise<Storage>;
  /**
   * Closes `previous` and opens the same underlying store again (same folder, same key prefix). Given, the
   * suite checks that every acknowledged write survives. Omit it for stores that keep nothing (memory).
   * @default undefined (persistence tests skipped)
   */
  reopen?: (previous: Storage) => Storage | Promise<Storage>;
  /**
   * Per-test timeout in milliseconds; the concurrency tests run 50 writers.
   * @default 30000
   */
  timeout?: number;
  /**
   * How many bytes `storage` has written to its medium so far (records, index entries, journal; file contents
   * apart). Given, the suite checks that one small write touches records of bounded size, whatever the size of the
   * parent. Adapters of this package report writes through their `onWrite` option.
   * @default undefined (write-size test skipped)
   * @example
   * const written = new WeakMap<Storage, { bytes: number }>();
   * runStorageConformance({ name: 'x', create: () => { const meter = { bytes: 0 }; const s = myStorage({ onWrite: (w) => { meter.bytes += w.bytes; } }); written.set(s, meter); return s; }, writtenBytes: (s) => written.get(s)!.bytes });
   */
  writtenBytes?: (storage: Storage) => number;
}

/**
 * Registers the storage conformance suite with vitest (`describe`/`it`): CRUD and compare-and-set on the three
 * record collections, ordering and cursors, `where` filters, tenant scoping; the two child collections (insertion
 * order, all-or-nothing `insertMany`, `put`'s three modes, `deleteAll`, paging, totals exact after every write and
 * under concurrent writers); the reference-counted file store and its batches; concurrent writers (none lost),
 * copies, persistence across reopen, `close()` (idempotent; every later call rejects with `storage_error`), and,
 * with `writtenBytes`, that one small write stays small in a large parent.
 * Call it at the top level of a test file. vitest is an optional peer dependency, needed only here.
 *
 * @example
 * // test/my-storage.test.ts
 * import { runStorageConformance } from '@docevals/adapters/conformance';
 * import { myStorage } from '../src/index.js';
 *
 * runStorageConformance({
 *   name: 'my-storage',
 *   create: () => myStorage({ url: process.env.MY_URL, keyPrefix: `test:${crypto.randomUUID()}:` }),
 *   reopen: async (previous) => { await previous.close(); return myStorage({ ... same prefix ... }); },
 * });
 */
export function runStorageConformance(options: StorageConformanceOptions): void {
  const opened = new Set<Storage>();
  const track = (storage: Storage) => {
    opened.add(storage);
    return storage;
  };
  const ctx: ConformanceContext = {
    open: async () => track(await options.create()),
    reopen: options.reopen ? async (previous) => track(await options.reopen!(previous)) : undefined,
    timeout: options.timeout ?? 30_000,
    writtenBytes: options.writtenBytes,
  };

  describe(`storage conformance: ${options.name}`, () => {
    afterEach(async () => {
      const stores = [...opened];
      opened.clear();
      // close() is idempotent by contract, so closing a store the test (or reopen) already closed is fine.
      await Promise.all(stores.map((s) => s.close()));
    });

    describe('records', () => recordTests(ctx));
    describe('lists', () => listTests(ctx));
    describe('child collections', () => childTests(ctx));
    describe('child batches (putMany)', () => batchChildTests(ctx));
    describe('files', () => fileTests(ctx));
    describe('file batches', () => batchFileTests(ctx));
    describe('concurrency', () => concurrencyTests(ctx));
    describe('jobs', () => jobTests(ctx));
    describe('persistence and close', () => persistenceTests(ctx));
    describe('after close', () => closedTests(ctx));
    if (ctx.writtenBytes) describe('write size', () => writeSizeTests(ctx));
  });
}
