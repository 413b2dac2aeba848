import { DocevalsError } from '@docevals/core';
import { Pool, type PoolClient, type PoolConfig, type QueryResultRow } from 'pg';
import { storageClosed } from '@docevals/core/storage-kit';
import type { WriteObserver } from '@docevals/core/storage-kit';

/** What one operation may send: a single statement, or several in one transaction. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** The pool of one store, whether the host's or the adapter's own, and the wrapping of its failures. */
export interface PostgresConnection {
  readonly pool: Pool;
  /**
   * Runs `work` once the schema is migrated, reporting any failure of Postgres as `storage_error` (a DocevalsError
   * passes through). `work` gets the pool: each query is its own statement and its own implicit transaction.
   */
  run<T>(operation: string, work: (db: Queryable) => Promise<T>): Promise<T>;
  /** As `run`, inside BEGIN ... COMMIT on one pooled connection; any throw rolls back. */
  transaction<T>(operation: string, work: (db: Queryable) => Promise<T>): Promise<T>;
  /** Tells the host's `onWrite` observer, if any, that a write of `collection` sent `bytes` of record data. */
  reportWrite(collection: string, bytes: number): void;
  close(): Promise<void>;
}

/** deadlock_detected, serialization_failure: the server aborted the whole transaction, nothing of it stays. */
const RETRIED_CODES = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 3;

export function openPostgresConnection(
  source: { pool: Pool } | { connectionString: string; poolConfig?: PoolConfig },
  prepare: (pool: Pool) => Promise<void>,
  onWrite?: WriteObserver,
): PostgresConnection {
  const owned = !('pool' in source);
  const pool =
    'pool' in source
      ? source.pool
      : new Pool({ connectionTimeoutMillis: 5_000, ...source.poolConfig, connectionString: source.connectionString });
  if (owned) {
    // An idle client that loses its connection (server restart) emits 'error' on the pool: without a listener that
    // would crash the host. The next query gets a fresh connection, or fails as storage_error.
    pool.on('error', () => undefined);
  }
  let closed = false;
  let closing: Promise<void> | undefined;
  let ready: Promise<void> | undefined;

  /** Migrates once per store; a failed attempt is forgotten, so the next operation tries again. */
  function ensureReady(): Promise<void> {
    ready ??= prepare(pool).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  }

  async function guarded<T>(operation: string, work: () => Promise<T>): Promise<T> {
    if (closed) throw storageClosed('postgres');
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureReady();
        return await work();
      } catch (error) {
        if (error instanceof DocevalsError) throw error;
        // A deadlock victim or serialization failure was rolled back whole by the server: running it again is safe.
        if (attempt < MAX_ATTEMPTS && RETRIED_CODES.has((error as { code?: string }).code ?? '')) continue;
        throw postgresFailure(operation, error);
      }
    }
  }

  return {
    pool,
    run(operation, work) {
      // The pool itself as Queryable (pg's overloaded query narrowed to the one form used): a wrapper object in its
      // place made a test of two pools under load run out of connections (not understood yet), so the cast stays.
      return guarded(operation, () => work(pool as unknown as Queryable));
    },
    transaction(operation, work) {
      return guarded(operation, async () => {
        // The client as Queryable, by cast for the same reason as the pool's above.
        return inTransaction(pool, (client) => work(client as unknown as Queryable));
      });
    },
    reportWrite(collection, bytes) {
      onWrite?.({ collection, bytes });
    },
    close() {
      if (closing) return closing;
      closed = true;
      closing = owned ? pool.end() : Promise.resolve();
      return closing;
    },
  };
}

/** Runs `work` inside BEGIN ... COMMIT on one pooled connection; any throw rolls back and is rethrown. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // A checked-out client has no listener of the pool's: without one, a connection dropped between two queries
  // would be an uncaught 'error' event. The query in flight (or the next one) fails on its own.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true; // the connection is gone: do not hand it back to the pool
    }
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/**
 * The one place where a failure of PostgreSQL becomes the caller's error: a `storage_error` naming the operation and
 * a short reason (the SQLSTATE or errno code, else the error's name), never the host, port or server message
 * (issue 13 L1); the original error is the `cause`, for logs.
 */
export function postgresFailure(operation: string, cause: unknown): DocevalsError {
  const code = (cause as { code?: unknown } | null)?.code;
  const reason = typeof code === 'string' ? code : cause instanceof Error ? cause.name : 'unknown error';
  return new DocevalsError('storage_error', `The postgres storage failed during ${operation} (${reason}).`, { cause });
}
