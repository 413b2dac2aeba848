// `@docevals/core/storage-kit`: the in-memory reference Storage and the building blocks that adapters share so
// that they order, page, total and fail alike. Framework-free (no I/O); docs/decisions.md says why it lives here.
export { memoryStorage } from './memory-storage.js';
export type { MemoryStorageOptions } from './memory-storage.js';
export { ChildFamilies, checkPutManyShape } from './child-families.js';
export type { ChildEntry, Family } from './child-families.js';
export { addInto, noTotals, RunningTotals } from './child-totals.js';
export { copyBytes } from './copy-bytes.js';
export { idRepeated, idTaken, mixedBatch, storageClosed } from './errors.js';
export { compareRecords, matchesWhere, pageRecords } from './page-records.js';
export type { WriteObserver, WriteReport } from './write-observer.js';
