export { redisStorage, type RedisStorage, type RedisStorageOptions } from './redis-storage.js';
export type { RedisSweepOptions, RedisSweepReport } from './redis-maintenance.js';
export { keyLayout, encodeKeySegment, type KeyLayout, type RecordKind } from './key-layout.js';
export type { SweepingStorage } from '../shared/shared-store.js';
