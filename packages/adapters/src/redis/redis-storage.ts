import type { DocumentRecord, EvaluationRecord, IterationEventRecord, IterationRecord, PredictionRecord, ProcessorRecord } from '@docevals/core';
import type { WriteObserver } from '@docevals/core/storage-kit';
import { redisChildCollection } from './redis-child-collection.js';
import type { Redis, RedisOptions } from 'ioredis';
import { keyLayout } from './key-layout.js';
import { openRedisConnection } from './redis-connection.js';
import { redisFileStore } from './redis-file-store.js';
import { redisJobCollection, redisRecordCollection } from './redis-record-collection.js';
import { isLegacyEvaluation, isLegacyIteration } from '../shared/legacy-records.js';
import { requireOneSource, type SweepingStorage } from '../shared/shared-store.js';
import {
  convertingCollection,
  type Maintenance,
  migrateEvaluation,
  migrateIteration,
  type RedisSweepOptions,
  type RedisSweepReport,
  sweepOrphans,
} from './redis-maintenance.js';

/** Options of {@link redisStorage}: exactly one of `client` and `url`. */
export interface RedisStorageOptions {
  /**
   * The host's ioredis client. The host owns it: `close()` leaves it open, and its own options decide how a dead
   * Redis is handled. ioredis' defaults queue commands while reconnecting and fail them only after 20 attempts (a
   * resent write is recognised by its token and not applied twice): for a quick `storage_error`, give it
   * `enableOfflineQueue: false` and `maxRetriesPerRequest: 0`, as the `url` mode does.
   * Scripts are added to it with `defineCommand` under `docevals*` names; its own `keyPrefix`, if any, comes first.
   * @default undefined (give `url` instead)
   * @example redisStorage({ client: new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 0 }) })
   */
  client?: Redis;
  /**
   * A `redis://` or `rediss://` URL. The adapter opens its own connection on first use (see `redisOptions` for how
   * it fails fast) and `close()` quits it.
   * @default undefined (give `client` instead)
   * @example redisStorage({ url: 'redis://127.0.0.1:6379/0' })
   */
  url?: string;
  /**
   * Prepended to every key, so that several stores (or other data) share one database. Keep `{` and `}` out of it:
   * the braces after it mark each organization's keys as one Redis Cluster hash tag.
   * @default 'docevals:'
   * @example redisStorage({ url, keyPrefix: 'staging:docevals:' })
   */
  keyPrefix?: string;
  /**
   * ioredis options for the client created from `url` (ignored with `client`), over the adapter's fail-fast
   * defaults: `lazyConnect: true`, `enableOfflineQueue: false`, `maxRetriesPerRequest: 0`,
   * `autoResendUnfulfilledCommands: false`, `connectTimeout: 5000`, `commandTimeout: 10000`, and a background
   * reconnection every 0.1–2 s.
   * @default {}
   * @example redisStorage({ url, redisOptions: { commandTimeout: 30_000, tls: {} } })
   */
  redisOptions?: RedisOptions;
  /** Called after each write with the bytes of the records it sent (JSON); for meters and tests. */
  onWrite?: WriteObserver;
}

/** A Redis storage, with its maintenance call. */
export type RedisStorage = SweepingStorage<RedisSweepOptions, RedisSweepReport>;

/**
 * A `Storage` (`@docevals/core`) on Redis, shared safely by any number of processes and servers: every write is one Lua script
 * (insert, compare-and-set replace, delete, file retain/release), lists walk a sorted set per organization from the
 * cursor, and reads batch their keys into one round trip. Any failure of Redis (refused, dropped, timed out) is a
 * `DocevalsError` with code `storage_error` and the original error as `cause`.
 *
 * Key layout (`{prefix}` = `keyPrefix`, `<org>` = the organization id, escaped): `{prefix}{<org>}:eval:<id>` (hash:
 * `v`, `json`, `s:<field>`), `{prefix}{<org>}:evals` (sorted set: score `updated_at` ms, member id), the same for
 * `iteration`/`iterations` and `processor`/`processors`, and `{prefix}{<org>}:file:<file_id>` (hash: `bytes`,
 * `mime_type`, `refs`). Tested on Redis 7.0; uses only Lua scripting, hashes, sorted sets and pipelines (Redis 4+).
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { redisStorage } from '@docevals/adapters/redis';
 *
 * // The host's client: close() leaves it open.
 * const storage = redisStorage({ client: new Redis(process.env.REDIS_URL!), keyPrefix: 'myapp:docevals:' });
 * // Or the adapter's own connection: close() quits it.
 * const owned = redisStorage({ url: 'redis://127.0.0.1:6379' });
 */
export function redisStorage(options: RedisStorageOptions): RedisStorage {
  const { client, url, keyPrefix = 'docevals:', redisOptions } = options;
  requireOneSource('redisStorage', { name: 'client', what: 'an ioredis client', value: client }, { name: 'url', value: url });
  const connection = openRedisConnection(client ? { client } : { url: url!, redisOptions });
  const keys = keyLayout(keyPrefix);
  const documents = redisChildCollection<DocumentRecord>(connection, keys, 'doc', 'documents', options.onWrite);
  const predictions = redisChildCollection<PredictionRecord>(connection, keys, 'pred', 'predictions', options.onWrite);
  const events = redisChildCollection<IterationEventRecord>(connection, keys, 'event', 'events', options.onWrite);
  // The collections as stored, for the conversion of old-layout records and the sweep.
  const maintenance: Maintenance = {
    client: connection.client,
    keys,
    prefix: keyPrefix,
    evaluations: redisRecordCollection<EvaluationRecord>(connection, keys, 'eval', 'evaluations', options.onWrite),
    iterations: redisRecordCollection<IterationRecord>(connection, keys, 'iteration', 'iterations', options.onWrite),
    documents,
    predictions,
    events,
  };
  return {
    name: 'redis',
    evaluations: convertingCollection(maintenance.evaluations, isLegacyEvaluation, (org, id) => migrateEvaluation(maintenance, org, id)),
    documents,
    iterations: convertingCollection(maintenance.iterations, isLegacyIteration, (org, id) => migrateIteration(maintenance, org, id)),
    predictions,
    processors: redisRecordCollection<ProcessorRecord>(connection, keys, 'processor', 'processors', options.onWrite),
    events,
    jobs: redisJobCollection(connection, keys, options.onWrite),
    files: redisFileStore(connection, keys),
    sweep: (sweepOptions) => connection.run('sweep', () => sweepOrphans(maintenance, sweepOptions)),
    close: () => connection.close(),
  };
}
