import type { Storage } from '@docevals/core';
import { afterEach, describe } from 'vitest';
import { concurrencyTests } from './concurrency-tests.js';
import type { ConformanceContext } from './context.js';
import { fileTests } from './file-tests.js';
import { listTests } from './list-tests.js';
import { persistenceTests } from './persistence-tests.js';
import { recordTests } from './record-tests.js';

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
}

/**
 * Registers the storage conformance suite with vitest (`describe`/`it`): CRUD and compare-and-set on the three
 * record collections, ordering and cursors, `where` filters, tenant scoping, the reference-counted file store,
 * concurrent writers (none lost), copies, persistence across reopen, and idempotent `close()`.
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
    describe('files', () => fileTests(ctx));
    describe('concurrency', () => concurrencyTests(ctx));
    describe('persistence and close', () => persistenceTests(ctx));
  });
}
