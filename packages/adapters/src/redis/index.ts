export { redisStorage, type RedisStorageOptions } from './redis-storage.js';
export { keyLayout, encodeKeySegment, type KeyLayout, type RecordKind } from './key-layout.js';
