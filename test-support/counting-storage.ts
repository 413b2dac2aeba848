import type { Storage } from '@docevals/core';
import { proxyCollections } from './storage-proxy.js';

/**
 * A real store whose calls are counted by `collection.method` (`events.list`...), for tests that assert how much a
 * feature reads: the calls go through unchanged. `reads()` sums the calls of the listed methods; `reset()` zeroes.
 *
 * @example
 * const storage = countingStorage(memoryStorage());
 * const docevals = createDocevals({ storage });
 * storage.reset(); // ... then storage.calls.get('events.list')
 */
export function countingStorage(inner: Storage): Storage & { calls: Map<string, number>; reset(): void; reads(...names: string[]): number } {
  const calls = new Map<string, number>();
  return {
    name: inner.name,
    ...proxyCollections(inner, (name, run) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return run();
    }),
    close: () => inner.close(),
    calls,
    reset: () => calls.clear(),
    reads: (...names) => names.reduce((sum, name) => sum + (calls.get(name) ?? 0), 0),
  };
}
