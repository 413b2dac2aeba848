import { storageError, type Storage } from '@docevals/core';

export type Fault = 'none' | 'unreachable' | 'bug';

/**
 * A real storage whose every call can be made to fail the way a store fails: `unreachable` as an adapter reports
 * a connection refused (a `storage_error`), `bug` as a plain Error with internals in its message.
 */
export function faultyStorage(inner: Storage): { storage: Storage; fail(fault: Fault): void } {
  let fault: Fault = 'none';
  const wrap = <T extends object>(target: T, name: string): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        if (typeof value === 'function') {
          return (...args: unknown[]) => {
            if (fault === 'unreachable') {
              return Promise.reject(storageError('memory', `${name}.${String(property)}`, new Error('connect ECONNREFUSED 10.0.0.7:6379')));
            }
            if (fault === 'bug') {
              return Promise.reject(new Error('SECRET internal detail at /srv/app/storage.ts:42'));
            }
            return value.apply(object, args);
          };
        }
        return value;
      },
    });
  const storage: Storage = {
    name: inner.name,
    evaluations: wrap(inner.evaluations, 'evaluations'),
    documents: wrap(inner.documents, 'documents'),
    iterations: wrap(inner.iterations, 'iterations'),
    predictions: wrap(inner.predictions, 'predictions'),
    processors: wrap(inner.processors, 'processors'),
    events: wrap(inner.events, 'events'),
    jobs: wrap(inner.jobs, 'jobs'),
    files: wrap(inner.files, 'files'),
    close: () => inner.close(),
  };
  return { storage, fail: (next) => void (fault = next) };
}
