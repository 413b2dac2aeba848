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
 * This entry point holds only the memory adapter, which needs no peer dependency: its types compile with none of
 * the optional peers installed. Each other adapter, its types included, comes from its own subpath.
 */
export { memoryStorage } from './memory/index.js';
export type { MemoryStorageOptions } from './memory/index.js';
export type { WriteObserver, WriteReport } from '@docevals/core/storage-kit';
