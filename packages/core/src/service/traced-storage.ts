import type { Storage } from '../storage.js';
import { inSpan, SEMCONV, SpanKind } from '../telemetry/index.js';

/** The collections whose calls get a span each. */
const COLLECTIONS = ['evaluations', 'documents', 'iterations', 'predictions', 'processors', 'events', 'jobs', 'files'] as const;

/**
 * The storage with one CLIENT span per call of a collection (the database client conventions: `db.system.name` is the
 * adapter's name, `db.collection.name`, `db.operation.name`, and `db.operation.batch.size` for the `*Many` calls), so a
 * trace shows every read and batch an operation or a document made, and a host can time them. With no tracer
 * provider registered a call costs a no-op span. The adapter itself is not changed.
 */
export function tracedStorage(storage: Storage): Storage {
  const wrapped = new Map<string, object>();
  for (const name of COLLECTIONS) wrapped.set(name, tracedCollection(storage.name, name, storage[name] as object));
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (typeof property === 'string' && wrapped.has(property)) return wrapped.get(property);
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function tracedCollection(system: string, collection: string, target: object): object {
  const methods = new Map<string | symbol, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const cached = methods.get(property);
      if (cached !== undefined) return cached;
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      const operation = String(property);
      const batch = operation.endsWith('Many');
      const traced = (...args: unknown[]) => {
        const attributes: Record<string, string | number> = {
          [SEMCONV.dbSystem]: system,
          [SEMCONV.dbCollection]: collection,
          [SEMCONV.dbOperation]: operation,
        };
        if (batch) {
          const list = [...args].reverse().find((a) => Array.isArray(a)) as unknown[] | undefined;
          if (list) attributes[SEMCONV.dbBatchSize] = list.length;
        }
        // Looked up at each call: a method replaced on the adapter later (a test's spy) is the one called.
        const method = Reflect.get(object, property, object) as (...args: unknown[]) => Promise<unknown>;
        return inSpan(`${operation} ${collection}`, { kind: SpanKind.CLIENT, attributes }, () => method.apply(object, args));
      };
      methods.set(property, traced);
      return traced;
    },
  });
}
