export { postgresStorage, type PostgresStorage, type PostgresStorageOptions } from './postgres-storage.js';
export type { PostgresSweepOptions, PostgresSweepReport } from './postgres-maintenance.js';
export { migrate, MIGRATIONS, type Migration, type MigrationResult } from './migrations.js';
export type { SweepingStorage } from '../shared/shared-store.js';
