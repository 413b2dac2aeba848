export { memoryStorage } from './memory-storage.js';
export type { MemoryStorageOptions } from './memory-storage.js';
