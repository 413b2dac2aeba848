export { postgresStorage, type PostgresStorageOptions } from './postgres-storage.js';
export { migrate, MIGRATIONS, type Migration, type MigrationResult } from './migrations.js';
