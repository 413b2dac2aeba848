import type { Storage } from '@docevals/core';

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
  const wrap = <T extends object>(target: T, collection: string): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== 'function') return value;
        const name = `${collection}.${String(property)}`;
        return (...args: unknown[]): unknown => {
          calls.set(name, (calls.get(name) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      },
    });
  return {
    name: inner.name,
    evaluations: wrap(inner.evaluations, 'evaluations'),
    documents: wrap(inner.documents, 'documents'),
    iterations: wrap(inner.iterations, 'iterations'),
    predictions: wrap(inner.predictions, 'predictions'),
    events: wrap(inner.events, 'events'),
    jobs: wrap(inner.jobs, 'jobs'),
    processors: wrap(inner.processors, 'processors'),
    files: wrap(inner.files, 'files'),
    close: () => inner.close(),
    calls,
    reset: () => calls.clear(),
    reads: (...names) => names.reduce((sum, name) => sum + (calls.get(name) ?? 0), 0),
  };
}
