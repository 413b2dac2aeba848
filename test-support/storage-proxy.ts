import type { Storage } from '@docevals/core';

/** The collections of a {@link Storage} (everything but its name and close). */
export type StorageCollections = Omit<Storage, 'name' | 'close'>;

const COLLECTIONS = ['evaluations', 'documents', 'iterations', 'predictions', 'events', 'jobs', 'processors', 'files'] as const satisfies ReadonlyArray<
  keyof StorageCollections
>;

/**
 * `inner`'s collections with every method call passed through `call(name, run)` (`name` is `collection.method`,
 * `run` makes the real call): the one wrapping that the test stores built on a real store share.
 *
 * @example
 * const collections = proxyCollections(memoryStorage(), (name, run) => (log.push(name), run()));
 */
export function proxyCollections(inner: Storage, call: (name: string, run: () => unknown) => unknown): StorageCollections {
  const wrap = <T extends object>(target: T, collection: string): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== 'function') return value;
        const name = `${collection}.${String(property)}`;
        return (...args: unknown[]): unknown => call(name, () => (value as (...a: unknown[]) => unknown).apply(object, args));
      },
    });
  return Object.fromEntries(COLLECTIONS.map((c) => [c, wrap(inner[c], c)])) as unknown as StorageCollections; // built key by key from the same list
}
