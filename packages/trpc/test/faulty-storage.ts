import { storageError, type Storage } from '@docevals/core';

/** What the wrapped store does on every call: its job, refuse as unreachable, or fail like a bug would. */
export type Fault = 'none' | 'unreachable' | 'bug';

/** A detail that must never reach a caller: it is in the message of the "bug" fault. */
export const SECRET_DETAIL = 'pg://admin:hunter2@10.0.0.7/docevals';

/**
 * A real store (memoryStorage) with a fault injected on demand: `unreachable` rejects every call with the
 * `storage_error` an adapter raises when its server is down; `bug` throws a TypeError carrying internals.
 */
export function faultyStorage(inner: Storage): Storage & { fault: Fault } {
  const state = { fault: 'none' as Fault };
  const guard = <T extends object>(target: T, collection: string): T => {
    const wrapped: Record<string, unknown> = {};
    for (const key of Object.keys(target) as Array<keyof T & string>) {
      const member = target[key];
      wrapped[key] =
        typeof member !== 'function'
          ? member
          : async (...args: unknown[]) => {
              if (state.fault === 'unreachable') {
                throw storageError('faulty-memory', `${collection}.${key}`, new Error('connect ECONNREFUSED'));
              }
              if (state.fault === 'bug') throw new TypeError(`Cannot read properties of undefined (${SECRET_DETAIL})`);
              return (member as (...a: unknown[]) => unknown).apply(target, args);
            };
    }
    return wrapped as T;
  };
  return {
    name: 'faulty-memory',
    evaluations: guard(inner.evaluations, 'evaluations'),
    documents: guard(inner.documents, 'documents'),
    iterations: guard(inner.iterations, 'iterations'),
    predictions: guard(inner.predictions, 'predictions'),
    processors: guard(inner.processors, 'processors'),
    events: guard(inner.events, 'events'),
    jobs: guard(inner.jobs, 'jobs'),
    files: guard(inner.files, 'files'),
    close: () => inner.close(),
    get fault() {
      return state.fault;
    },
    set fault(value: Fault) {
      state.fault = value;
    },
  };
}
