export { lowdbStorage, type LowdbStorage, type LowdbStorageOptions } from './lowdb-storage.js';
