export { lowdbStorage, type LowdbStorage, type LowdbStorageOptions } from './lowdb-storage.js';
export type { SweepReport } from './load-store.js';
