import { storageError, type Storage } from '@docevals/core';
import { proxyCollections } from './storage-proxy.js';

/** What the wrapped store does on every call: its job, refuse as unreachable, or fail like a bug would. */
export type Fault = 'none' | 'unreachable' | 'bug';

/** A detail that must never reach a caller: it is in the message of the "bug" fault (a path, a credential). */
export const SECRET_DETAIL = 'SECRET internal detail at /srv/app/storage.ts:42 (pg://admin:hunter2@10.0.0.7/docevals)';

/**
 * A real store with a fault injected on demand, for the transports' error tests: `unreachable` rejects every call
 * with the `storage_error` an adapter raises when its server is down; `bug` rejects with a TypeError carrying
 * internals ({@link SECRET_DETAIL}). Set `fault` back to `'none'` and the store works again, its data untouched.
 *
 * @example
 * const storage = faultyStorage(memoryStorage());
 * const docevals = createDocevals({ storage });
 * storage.fault = 'unreachable'; // every storage call now fails with a storage_error
 */
export function faultyStorage(inner: Storage): Storage & { fault: Fault } {
  let fault: Fault = 'none';
  return {
    name: `faulty-${inner.name}`,
    ...proxyCollections(inner, (operation, run) => {
      if (fault === 'unreachable') return Promise.reject(storageError(inner.name, operation, new Error('connect ECONNREFUSED 10.0.0.7:6379')));
      if (fault === 'bug') return Promise.reject(new TypeError(`Cannot read properties of undefined (${SECRET_DETAIL})`));
      return run();
    }),
    close: () => inner.close(),
    get fault() {
      return fault;
    },
    set fault(value: Fault) {
      fault = value;
    },
  };
}
