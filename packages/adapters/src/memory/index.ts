// The memory store is framework-free and lives in the core (`@docevals/core/storage-kit`, docs/decisions.md);
// this entry keeps its public name.
export { memoryStorage } from '@docevals/core/storage-kit';
export type { MemoryStorageOptions } from '@docevals/core/storage-kit';
