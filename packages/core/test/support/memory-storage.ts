// The store core tests run on: the core's own memory store (`@docevals/core/storage-kit`, docs/decisions.md).
export { memoryStorage } from '@docevals/core/storage-kit';
