import { escapeIdentifier, type Pool } from 'pg';
import { inTransaction } from './postgres-connection.js';

/**
 * The versioned schema of the Postgres adapter. Each version runs in its own transaction, under a transaction-level
 * advisory lock on the schema name, and records itself in `<schema>.schema_migrations` in that same transaction: a
 * version is applied whole or not at all, exactly once, however many servers start at the same moment.
 *
 * Never edit a released version: add the next one.
 */
export interface Migration {
  version: number;
  name: string;
  /** The statements, given the quoted schema name. */
  sql: (schema: string) => string;
}

/** Text columns that are compared or ordered use the "C" collation: byte order, the same on every host and locale. */
const recordTable = (s: string, table: string) => `
CREATE TABLE ${s}.${table} (
  organization_id text COLLATE "C" NOT NULL,
  id              text COLLATE "C" NOT NULL,
  version         integer NOT NULL,
  updated_at      text COLLATE "C" NOT NULL,
  strings         jsonb NOT NULL,
  body            json NOT NULL,
  PRIMARY KEY (organization_id, id)
);
CREATE INDEX ${table}_order ON ${s}.${table} (organization_id, updated_at, id);
CREATE INDEX ${table}_strings ON ${s}.${table} USING gin (strings jsonb_path_ops);
`;

/** The unique index of a parent's order, as migration 4 defines it (a list reads it with {@link PARENT_KEY}). */
const orderIndex = (s: string, table: string) =>
  `CREATE UNIQUE INDEX ${table}_order ON ${s}.${table} ((ARRAY[organization_id, parent_id]), position);`;

/** The expression a child table's order index is keyed by; only the pages of a list compare it. */
export const PARENT_KEY = 'ARRAY[organization_id, parent_id]';

const childTable = (s: string, table: string) => `
CREATE TABLE ${s}.${table} (
  organization_id text COLLATE "C" NOT NULL,
  parent_id       text COLLATE "C" NOT NULL,
  id              text COLLATE "C" NOT NULL,
  version         integer NOT NULL,
  position        bigint NOT NULL,
  totals          jsonb NOT NULL,
  body            json NOT NULL,
  PRIMARY KEY (organization_id, parent_id, id)
);
CREATE UNIQUE INDEX ${table}_order ON ${s}.${table} (organization_id, parent_id, position);
CREATE TABLE ${s}.${table}_parents (
  organization_id text COLLATE "C" NOT NULL,
  parent_id       text COLLATE "C" NOT NULL,
  next_position   bigint NOT NULL DEFAULT 1,
  count           bigint NOT NULL DEFAULT 0,
  sums            jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (organization_id, parent_id)
);
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'records, children with per-parent totals, files',
    sql: (s) => `
${recordTable(s, 'evaluations')}
${recordTable(s, 'iterations')}
${recordTable(s, 'processors')}
${childTable(s, 'documents')}
${childTable(s, 'predictions')}
CREATE TABLE ${s}.files (
  organization_id text COLLATE "C" NOT NULL,
  file_id         text COLLATE "C" NOT NULL,
  mime_type       text NOT NULL,
  bytes           bytea NOT NULL,
  refs            integer NOT NULL,
  PRIMARY KEY (organization_id, file_id)
);
-- Documents arrive as PDFs and images, already compressed: store them out of line without trying again.
ALTER TABLE ${s}.files ALTER COLUMN bytes SET STORAGE EXTERNAL;
`,
  },
  {
    version: 2,
    name: 'what sweep() needs: when a file reference last moved, documents by file id',
    sql: (s) => `
ALTER TABLE ${s}.files ADD COLUMN touched_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX documents_by_file ON ${s}.documents (organization_id, id);
`,
  },
  {
    version: 3,
    name: 'durable jobs: an iteration\'s events (children of the iteration), the active jobs (records)',
    sql: (s) => `
${childTable(s, 'events')}
${recordTable(s, 'jobs')}
`,
  },
  {
    version: 4,
    name: 'a child looked up by id uses the primary key whatever the statistics: the order and by-file indexes keyed by an array; room for in-place updates',
    // Right after a bulk insert, before ANALYZE, the planner saw (organization_id, parent_id, position) as the cheaper
    // index for `organization_id = $1 AND parent_id = $2 AND id = $3` (it is smaller) and read the whole parent
    // (2,800 blocks at 5,000 documents). Keyed by ARRAY[organization_id, parent_id] the order index matches only
    // queries written with that expression (the pages of a list); column comparisons can use the primary key only.
    // documents_by_file likewise: ARRAY[organization_id, id], used by the sweep alone. Documents and predictions
    // are updated in place (an annotation, a refreshed prediction): pages kept 15 % free let the first update of a
    // freshly inserted row stay on its page (a HOT update, no index entry written), as later ones already did.
    sql: (s) => `
${['documents', 'predictions', 'events'].map((t) => `DROP INDEX ${s}.${t}_order;\n${orderIndex(s, t)}`).join('\n')}
DROP INDEX ${s}.documents_by_file;
CREATE INDEX documents_by_file ON ${s}.documents ((ARRAY[organization_id, id]));
ALTER TABLE ${s}.documents SET (fillfactor = 85);
ALTER TABLE ${s}.predictions SET (fillfactor = 85);
`,
  },
];

/** What {@link migrate} did. */
export interface MigrationResult {
  /** The versions this call applied (empty when the schema was already current). */
  applied: number[];
  /** The schema's version afterwards. */
  version: number;
}

/**
 * Brings `schema` up to the adapter's current version: creates the schema and its tables on first use, then applies
 * each missing version in its own transaction under `pg_advisory_xact_lock`, so servers that start at once apply
 * each version exactly once and none sees a half-applied one. Idempotent; a current schema costs one query.
 * `postgresStorage` calls it before its first operation; call it yourself to migrate at deploy time instead.
 *
 * @example
 * import { Pool } from 'pg';
 * import { migrate } from '@docevals/adapters/postgres';
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * const { applied, version } = await migrate(pool, 'docevals');
 * console.log(`docevals schema at version ${version}; applied now: ${applied.join(', ') || 'none'}`);
 */
export async function migrate(pool: Pool, schema = 'docevals'): Promise<MigrationResult> {
  const s = escapeIdentifier(schema);
  const latest = MIGRATIONS[MIGRATIONS.length - 1].version;
  const current = await currentVersion(pool, s);
  if (current !== null && current >= latest) return { applied: [], version: current };

  const lockKey = `docevals:${schema}`;
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
  });
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    const done = await inTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey]);
      const found = await client.query(`SELECT 1 FROM ${s}.schema_migrations WHERE version = $1`, [migration.version]);
      if (found.rowCount) return false;
      await client.query(migration.sql(s));
      await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return { applied, version: (await currentVersion(pool, s)) ?? latest };
}

/** The highest applied version, or null when the schema or its migrations table does not exist yet. */
async function currentVersion(pool: Pool, s: string): Promise<number | null> {
  const exists = await pool.query<{ table: string | null }>('SELECT to_regclass($1)::text AS table', [`${s}.schema_migrations`]);
  if (exists.rows[0]?.table == null) return null;
  const result = await pool.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${s}.schema_migrations`);
  return result.rows[0]?.version ?? null;
}
