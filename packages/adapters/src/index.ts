/**
 * `@docevals/adapters`: storage adapters for docevals, one subpath each, so that an optional peer dependency is
 * loaded only by the adapter that needs it:
 * - `@docevals/adapters/memory`: `memoryStorage()`, in-process, no dependency (also exported here);
 * - `@docevals/adapters/lowdb`: `lowdbStorage({ dir })`, embedded on the local disk, one JSON file per record (no dependency);
 * - `@docevals/adapters/redis`: `redisStorage({ client | url, keyPrefix })`, shared by many servers (peer: ioredis);
 * - `@docevals/adapters/postgres`: `postgresStorage({ pool | connectionString, schema })`, shared by many servers on
 *   the PostgreSQL a host already runs (peer: pg);
 * - `@docevals/adapters/conformance`: `runStorageConformance(...)`, the suite every adapter passes (peer: vitest).
 *
 * This entry point re-exports only what loads no peer dependency: the memory adapter and the other adapters' types.
 */
export { memoryStorage } from './memory/index.js';
export type { LowdbStorage, LowdbStorageOptions, SweepReport } from './lowdb/index.js';
export type { RedisStorage, RedisStorageOptions, RedisSweepOptions, RedisSweepReport } from './redis/index.js';
export type { PostgresStorageOptions } from './postgres/index.js';
export type { MemoryStorageOptions } from './memory/index.js';
export type { WriteObserver, WriteReport } from '@docevals/core/storage-kit';
export type { StorageConformanceOptions } from './conformance/index.js';
