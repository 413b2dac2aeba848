import type { Storage } from '@docevals/core';
import { expect } from 'vitest';

/** What each group of conformance tests gets from {@link runStorageConformance}. */
export interface ConformanceContext {
  /** A fresh, empty store; closed by the suite after the test. */
  open(): Promise<Storage>;
  /** Closes `previous` and opens the same underlying store again; absent when the adapter keeps nothing. */
  reopen?: (previous: Storage) => Promise<Storage>;
  /** Per-test timeout in milliseconds. */
  timeout: number;
  /** Bytes the store has written so far, when the adapter reports them (the `writtenBytes` option of runStorageConformance). */
  writtenBytes?: (storage: Storage) => number;
}

/**
 * Awaits `promise` and returns what it rejected with; fails the test when it resolved. The check is on `name` and
 * `code` rather than `instanceof`: a third-party adapter may load its own copy of `@docevals/core`.
 */
export async function rejection(promise: Promise<unknown>): Promise<{ name?: string; code?: string; message?: string }> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (error) {
    return error as { name?: string; code?: string };
  }
  expect.fail(`expected a rejection, got ${JSON.stringify(outcome)}`);
}

/** Mutates whatever it is given; a frozen value (also a valid way to protect the store) is left alone. */
export function tamper(action: () => void): void {
  try {
    action();
  } catch {
    // Frozen objects throw in strict mode: that protects the store as well as a copy does.
  }
}
