import { DocevalsError } from '@docevals/core';
import type {
  DocumentRecord,
  EvaluationRecord,
  IterationEventRecord,
  IterationRecord,
  PredictionRecord,
  ProcessorRecord,
} from '@docevals/core';
import { escapeIdentifier, type Pool, type PoolConfig } from 'pg';
import { migrate } from './migrations.js';
import { postgresChildCollection } from './postgres-child-collection.js';
import { openPostgresConnection } from './postgres-connection.js';
import { postgresFileStore } from './postgres-file-store.js';
import { postgresJobCollection, postgresRecordCollection } from './postgres-record-collection.js';
import { sweepOrphans, type PostgresSweepOptions, type PostgresSweepReport } from './postgres-maintenance.js';
import type { WriteObserver } from '@docevals/core/storage-kit';
import { requireOneSource, type SweepingStorage } from '../shared/shared-store.js';

/** Options of {@link postgresStorage}: exactly one of `pool` and `connectionString`. */
export interface PostgresStorageOptions {
  /**
   * The host's node-postgres pool. The host owns it: `close()` leaves it open.
   * @default undefined (give `connectionString` instead)
   * @example postgresStorage({ pool: new Pool({ connectionString: process.env.DATABASE_URL, max: 20 }) })
   */
  pool?: Pool;
  /**
   * A `postgres://` URL. The adapter opens its own pool on first use and `close()` ends it.
   * @default undefined (give `pool` instead)
   * @example postgresStorage({ connectionString: 'postgres://docevals@127.0.0.1:5432/app' })
   */
  connectionString?: string;
  /**
   * The Postgres schema that holds the adapter's tables; created on first use. Several stores (or tests) share one
   * database with one schema each.
   * @default 'docevals'
   * @example postgresStorage({ connectionString, schema: 'docevals_staging' })
   */
  schema?: string;
  /**
   * node-postgres pool options for the pool created from `connectionString` (ignored with `pool`), over the
   * adapter's `connectionTimeoutMillis: 5000`.
   * @default {}
   * @example postgresStorage({ connectionString, poolConfig: { max: 20, statement_timeout: 10_000 } })
   */
  poolConfig?: PoolConfig;
  /**
   * Whether the first operation migrates the schema to the adapter's version ({@link migrate}). Turn it off when
   * deployments run `migrate()` themselves and the application's role may not create tables.
   * @default true
   * @example postgresStorage({ pool, migrate: false })
   */
  migrate?: boolean;
  /**
   * Called after each write with the collection and the bytes of record data it sent (bodies, filter fields,
   * totals; file contents under `files`), for metering. Must not throw.
   * @default undefined
   * @example postgresStorage({ pool, onWrite: ({ collection, bytes }) => metrics.add(collection, bytes) })
   */
  onWrite?: WriteObserver;
}

/** The Postgres store: a `Storage` (`@docevals/core`), plus the reclaiming of a crash's leftovers. */
export type PostgresStorage = SweepingStorage<PostgresSweepOptions, PostgresSweepReport>;

/**
 * A `Storage` (`@docevals/core`) on PostgreSQL, shared safely by any number of processes and servers: records are rows with a
 * version (compare-and-set is one `UPDATE ... WHERE version = $n`), documents and predictions are rows with a
 * position in their parent's order and per-parent totals kept in the same transaction, files are content-addressed
 * `bytea` rows with a reference count, and every list is a keyset query on an index. The schema migrates itself
 * before the first operation (versioned, under an advisory lock; see {@link migrate}). Any failure of Postgres is a
 * `DocevalsError` with code `storage_error` and the original error as `cause`.
 *
 * Tables in `schema`: `evaluations`, `iterations`, `processors`, `jobs`, `documents` + `documents_parents`,
 * `predictions` + `predictions_parents`, `events` + `events_parents`, `files`, `schema_migrations` (docs/storage.md). Tested on PostgreSQL 15; needs 11+.
 *
 * @example
 * import { Pool } from 'pg';
 * import { postgresStorage } from '@docevals/adapters/postgres';
 *
 * // The host's pool: close() leaves it open.
 * const storage = postgresStorage({ pool: new Pool({ connectionString: process.env.DATABASE_URL }), schema: 'docevals' });
 * // Or the adapter's own pool: close() ends it.
 * const owned = postgresStorage({ connectionString: 'postgres://127.0.0.1:5432/app' });
 */
export function postgresStorage(options: PostgresStorageOptions): PostgresStorage {
  const { pool, connectionString, schema = 'docevals', poolConfig } = options;
  requireOneSource('postgresStorage', { name: 'pool', what: 'a node-postgres Pool', value: pool }, { name: 'connectionString', value: connectionString });
  if (typeof schema !== 'string' || schema.length === 0 || schema.length > 63) {
    throw new DocevalsError('validation_error', 'postgresStorage `schema` must be a name of 1 to 63 characters.');
  }
  const prepare = options.migrate === false ? async () => undefined : async (p: Pool) => void (await migrate(p, schema));
  const connection = openPostgresConnection(
    pool ? { pool } : { connectionString: connectionString!, poolConfig },
    prepare,
    options.onWrite,
  );
  const s = escapeIdentifier(schema);
  const iterations = postgresRecordCollection<IterationRecord>(connection, s, 'iterations', 'iterations');
  const documents = postgresChildCollection<DocumentRecord>(connection, s, 'documents', 'documents');
  const predictions = postgresChildCollection<PredictionRecord>(connection, s, 'predictions', 'predictions');
  const events = postgresChildCollection<IterationEventRecord>(connection, s, 'events', 'events');
  return {
    name: 'postgres',
    evaluations: postgresRecordCollection<EvaluationRecord>(connection, s, 'evaluations', 'evaluations'),
    documents,
    iterations,
    predictions,
    events,
    jobs: postgresJobCollection(connection, s, 'jobs'),
    processors: postgresRecordCollection<ProcessorRecord>(connection, s, 'processors', 'processors'),
    files: postgresFileStore(connection, s),
    sweep: (sweepOptions) => sweepOrphans(connection, s, { iterations, documents, predictions, events }, sweepOptions),
    close: () => connection.close(),
  };
}
