import type { JobCollection, JobRecord, RecordCollection, RecordListQuery, RecordPage, StoredRecordBase, Versioned } from '@docevals/core';
import { idTaken } from '@docevals/core/storage-kit';
import type { PostgresConnection, Queryable } from './postgres-connection.js';

interface RecordRow {
  id: string;
  version: number;
  body: unknown;
}

/**
 * One record collection as one table: a row per record with its version, the record as `json` (`body`), its
 * top-level string fields as `jsonb` (`strings`, GIN-indexed for `where`), and `updated_at`, indexed with the
 * organization and id for keyset paging. Every write is one statement; compare-and-set is
 * `UPDATE ... WHERE version = $n`.
 */
export function postgresRecordCollection<T extends StoredRecordBase>(
  connection: PostgresConnection,
  schema: string,
  table: string,
  label: string,
): RecordCollection<T> {
  const t = `${schema}.${table}`;

  function toVersioned(row: RecordRow): Versioned<T> {
    return { value: row.body as T, version: row.version };
  }

  return {
    get(organizationId, id) {
      return connection.run(`${label}.get`, async (db) => {
        const { rows } = await db.query<RecordRow>(
          `SELECT id, version, body FROM ${t} WHERE organization_id = $1 AND id = $2`,
          [organizationId, id],
        );
        return rows[0] ? toVersioned(rows[0]) : null;
      });
    },

    getMany(organizationId, ids) {
      return connection.run(`${label}.getMany`, (db) => getManyRecords<T>(t, db, organizationId, ids));
    },

    insert(record) {
      return connection.run(`${label}.insert`, async (db) => {
        const { body, strings } = encode(record);
        const { rows } = await db.query<RecordRow>(
          `INSERT INTO ${t} (organization_id, id, version, updated_at, strings, body)
           VALUES ($1, $2, 1, $3, $4::jsonb, $5::json)
           ON CONFLICT (organization_id, id) DO NOTHING
           RETURNING id, version, body`,
          [record.organization_id, record.id, record.updated_at, strings, body],
        );
        if (!rows[0]) throw idTaken(label, record.id);
        connection.reportWrite(label, Buffer.byteLength(body) + Buffer.byteLength(strings));
        return toVersioned(rows[0]);
      });
    },

    replace(record, expectedVersion) {
      return connection.run(`${label}.replace`, async (db) => {
        const { body, strings } = encode(record);
        const { rows } = await db.query<RecordRow>(
          `UPDATE ${t} SET version = version + 1, updated_at = $3, strings = $4::jsonb, body = $5::json
           WHERE organization_id = $1 AND id = $2 AND version = $6
           RETURNING id, version, body`,
          [record.organization_id, record.id, record.updated_at, strings, body, expectedVersion],
        );
        if (!rows[0]) return null;
        connection.reportWrite(label, Buffer.byteLength(body) + Buffer.byteLength(strings));
        return toVersioned(rows[0]);
      });
    },

    delete(organizationId, id, expectedVersion) {
      return connection.run(`${label}.delete`, async (db) => {
        const result =
          expectedVersion === undefined
            ? await db.query(`DELETE FROM ${t} WHERE organization_id = $1 AND id = $2`, [organizationId, id])
            : await db.query(`DELETE FROM ${t} WHERE organization_id = $1 AND id = $2 AND version = $3`, [
                organizationId,
                id,
                expectedVersion,
              ]);
        const deleted = (result.rowCount ?? 0) > 0;
        if (deleted) connection.reportWrite(label, Buffer.byteLength(id));
        return deleted;
      });
    },

    list(organizationId, query) {
      return connection.run(`${label}.list`, (db) => listRecords<T>(t, db, organizationId, query));
    },
  };
}

/** The records of `ids` in their order, null where absent. */
async function getManyRecords<T extends StoredRecordBase>(
  t: string,
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<Array<Versioned<T> | null>> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<RecordRow>(`SELECT id, version, body FROM ${t} WHERE organization_id = $1 AND id = ANY($2::text[])`, [
    organizationId,
    [...new Set(ids)],
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  // A fresh parse per position: an id asked twice gets two independent copies.
  return ids.map((id) => {
    const row = byId.get(id);
    return row ? { value: structuredClone(row.body) as T, version: row.version } : null;
  });
}

/**
 * One keyset query on `(organization_id, updated_at, id)`: the cursor's key, then `limit + 1` rows past it in the
 * direction of travel (the extra one only tells `has_more`). `before` walks backward from its cursor and the page
 * is turned round. With `where`, `strings @> $filter` (GIN) narrows the rows.
 */
async function listRecords<T extends StoredRecordBase>(
  t: string,
  db: Queryable,
  organizationId: string,
  query: RecordListQuery,
): Promise<RecordPage<T> | null> {
  const limit = Math.max(0, Math.floor(query.limit));
  const cursorIds = [query.after, query.before].filter((id): id is string => id !== undefined);
  const keys = new Map<string, { updated_at: string; id: string }>();
  if (cursorIds.length > 0) {
    const { rows } = await db.query<{ updated_at: string; id: string }>(
      `SELECT updated_at, id FROM ${t} WHERE organization_id = $1 AND id = ANY($2::text[])`,
      [organizationId, cursorIds],
    );
    for (const row of rows) keys.set(row.id, row);
    if (cursorIds.some((id) => !keys.has(id))) return null;
  }

  const backward = query.before !== undefined;
  // "Later in the requested order" is > for asc and < for desc.
  const later = query.order === 'asc' ? '>' : '<';
  const earlier = query.order === 'asc' ? '<' : '>';
  const values: unknown[] = [organizationId];
  const conditions = ['organization_id = $1'];
  const bound = (op: string, key: { updated_at: string; id: string }) => {
    values.push(key.updated_at, key.id);
    conditions.push(`(updated_at, id) ${op} ($${values.length - 1}, $${values.length})`);
  };
  if (query.after !== undefined) bound(later, keys.get(query.after)!);
  if (query.before !== undefined) bound(earlier, keys.get(query.before)!);
  if (query.where && Object.keys(query.where).length > 0) {
    values.push(JSON.stringify(filterFields(query.where)));
    conditions.push(`strings @> $${values.length}::jsonb`);
  }
  const ascending = (query.order === 'asc') !== backward;
  const direction = ascending ? 'ASC' : 'DESC';
  values.push(limit + 1);
  const { rows } = await db.query<RecordRow>(
    `SELECT id, version, body FROM ${t} WHERE ${conditions.join(' AND ')}
     ORDER BY updated_at ${direction}, id ${direction} LIMIT $${values.length}`,
    values,
  );
  const items = rows.slice(0, limit).map((row) => row.body as T);
  if (backward) items.reverse();
  return { items, has_more: rows.length > limit };
}

/**
 * The jobs table, whose capped insert is one transaction: a transaction-level advisory lock on the organization
 * (so two inserts of one organization take turns, on every server), then one `INSERT ... SELECT ... WHERE count < cap`
 * whose snapshot is taken after the lock, so it sees the other's committed row.
 */
export function postgresJobCollection(connection: PostgresConnection, schema: string, table: string): JobCollection {
  const t = `${schema}.${table}`;
  return {
    ...postgresRecordCollection<JobRecord>(connection, schema, table, 'jobs'),
    insertWithinCap(record, cap) {
      return connection.transaction('jobs.insertWithinCap', async (db) => {
        const { body, strings } = encode(record);
        const organization = JSON.stringify(filterFields({ iteration_organization_id: record.iteration_organization_id }));
        await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${t}:${organization}`]);
        const { rows } = await db.query<RecordRow>(
          `INSERT INTO ${t} (organization_id, id, version, updated_at, strings, body)
           SELECT $1, $2, 1, $3, $4::jsonb, $5::json
           WHERE (SELECT count(*) FROM ${t} WHERE organization_id = $1 AND strings @> $6::jsonb) < $7
           ON CONFLICT (organization_id, id) DO NOTHING
           RETURNING id, version, body`,
          [record.organization_id, record.id, record.updated_at, strings, body, organization, cap],
        );
        if (rows[0]) {
          connection.reportWrite('jobs', Buffer.byteLength(body) + Buffer.byteLength(strings));
          return { value: rows[0].body as JobRecord, version: rows[0].version };
        }
        const existing = await db.query(`SELECT 1 FROM ${t} WHERE organization_id = $1 AND id = $2`, [record.organization_id, record.id]);
        if (existing.rows.length > 0) throw idTaken('jobs', record.id);
        return null;
      });
    },
  };
}

/** The record as stored: its JSON text, and its top-level string fields (what `where` filters on). */
function encode(record: StoredRecordBase): { body: string; strings: string } {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(record)) {
    if (typeof value === 'string') fields[name] = value;
  }
  return { body: JSON.stringify(record), strings: JSON.stringify(filterFields(fields)) };
}

/**
 * String fields as the `strings` column holds them. jsonb refuses `\u0000` and lone surrogates (which `json` bodies
 * keep), so those are written as `\uXXXX` text, and `\` as `\\` so that the escape stays unambiguous. Filters go
 * through the same function, so a match is still exact.
 */
function filterFields(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) out[jsonbSafe(name)] = jsonbSafe(value);
  return out;
}

const JSONB_UNSAFE = /\\|\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function jsonbSafe(value: string): string {
  return value.replace(JSONB_UNSAFE, (c) => (c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
