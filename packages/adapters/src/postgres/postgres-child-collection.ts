import type { ChildCollection, ChildPageQuery, ChildPut, ChildRecordBase, ChildTotals, PutManyResult, RecordPage, Versioned } from '@docevals/core';
import { addInto, checkPutManyShape, idRepeated, mixedBatch, noTotals } from '@docevals/core/storage-kit';
import { PARENT_KEY } from './migrations.js';
import type { PostgresConnection, Queryable } from './postgres-connection.js';
import { COPY_AFTER, copyChildren, ELEMENTS, insertChildren } from './postgres-child-insert.js';

/** The smallest insert after which the table is analyzed at once (see `analyzeAfterBulkInsert`). */
export const ANALYZE_AFTER = 1_000;

interface ChildRow {
  id: string;
  version: number;
  body: unknown;
}

interface ParentRow {
  next_position: string;
  count: string;
  sums: Record<string, number>;
}

/** The tables of one child collection and the connection that reaches them. */
interface ChildTables {
  connection: PostgresConnection;
  /** `<schema>.<table>`: a row per child. */
  c: string;
  /** `<schema>.<table>_parents`: a row per parent. */
  p: string;
  label: string;
}

/**
 * One child collection as two tables: `<table>` holds a row per child (version, `position` in the parent's order,
 * its `totals`, the record as `json`), and `<table>_parents` a row per parent (the next position, the count and
 * the summed totals). Every write locks the parent's row first, then changes the child and the parent's row in the
 * same transaction: writes to one parent are serialized, so totals and positions stay exact, and writes to
 * different parents never wait for each other. Reads take no lock.
 */
export function postgresChildCollection<T extends ChildRecordBase>(
  connection: PostgresConnection,
  schema: string,
  table: string,
  label: string,
): ChildCollection<T> {
  const t: ChildTables = { connection, c: `${schema}.${table}`, p: `${schema}.${table}_parents`, label };
  return {
    get: (organizationId, parentId, id) => getChild<T>(t, organizationId, parentId, id),
    getMany: (organizationId, parentId, ids) => getManyChildren<T>(t, organizationId, parentId, ids),
    insertMany: (records) => insertManyChildren(t, records),
    put: (record, expectedVersion) => putChild(t, record, expectedVersion),
    putMany: (entries) => putManyChildren(t, entries),
    delete: (organizationId, parentId, id, expectedVersion) => deleteChild(t, organizationId, parentId, id, expectedVersion),
    deleteAll: (organizationId, parentId) => deleteAllChildren(t, organizationId, parentId),
    list: (organizationId, parentId, query) => listChildren<T>(t, organizationId, parentId, query),
    totals: (organizationId, parentId) => childTotals(t, organizationId, parentId),
  };
}

/** Locks the parent's row, creating it when absent (an upsert locks the row it conflicts on). */
async function lockOrCreateParent({ p }: ChildTables, db: Queryable, organizationId: string, parentId: string): Promise<ParentRow> {
  const { rows } = await db.query<ParentRow>(
    `INSERT INTO ${p} (organization_id, parent_id) VALUES ($1, $2)
     ON CONFLICT (organization_id, parent_id) DO UPDATE SET count = ${p}.count
     RETURNING next_position, count, sums`,
    [organizationId, parentId],
  );
  return rows[0];
}

/** Locks the parent's row when it exists; null means the parent has no children. */
async function lockParent({ p }: ChildTables, db: Queryable, organizationId: string, parentId: string): Promise<ParentRow | null> {
  const { rows } = await db.query<ParentRow>(
    `SELECT next_position, count, sums FROM ${p} WHERE organization_id = $1 AND parent_id = $2 FOR UPDATE`,
    [organizationId, parentId],
  );
  return rows[0] ?? null;
}

async function saveParent(
  { p }: ChildTables,
  db: Queryable,
  organizationId: string,
  parentId: string,
  change: { positions: number; count: number; sums: Record<string, number> },
): Promise<void> {
  await db.query(
    `UPDATE ${p} SET next_position = next_position + $3, count = count + $4, sums = $5::jsonb
     WHERE organization_id = $1 AND parent_id = $2`,
    [organizationId, parentId, change.positions, change.count, JSON.stringify(change.sums)],
  );
}

/**
 * After a large insert (>= {@link ANALYZE_AFTER} rows, and at least as many as the table had at its last ANALYZE:
 * the table has doubled), analyzes the table at once instead of leaving the planner without statistics until
 * autovacuum comes (about a minute). Doubling keeps the ANALYZEs of a growing table to a logarithmic number (an
 * evaluation imported with five iterations of 10,000 predictions analyzed the predictions five times, 4 s of its
 * build, with the tenth autovacuum uses); between two, the planner scales the row count it knew by the table's
 * current size in pages, so its estimates stay close. SKIP_LOCKED: an ANALYZE already running on the table is enough. A failure (a role that does
 * not own the table) leaves the committed insert as it is: statistics are an optimisation.
 */
async function analyzeAfterBulkInsert({ connection, c, label }: ChildTables, inserted: number): Promise<void> {
  if (inserted < ANALYZE_AFTER) return;
  await connection
    .run(`${label}.analyze`, async (db) => {
      const { rows } = await db.query<{ reltuples: number }>('SELECT reltuples FROM pg_class WHERE oid = $1::regclass', [c]);
      const known = rows[0]?.reltuples ?? -1;
      if (known > 0 && inserted < known) return;
      await db.query(`ANALYZE (SKIP_LOCKED) ${c}`);
    })
    .catch(() => undefined);
}

/** Written records as their answers: the records as given (JSON values: what was stored reads back equal). */
function asWritten<T extends ChildRecordBase>(records: readonly T[], rows: Array<{ id: string; version: number }>): Array<Versioned<T>> {
  const versions = new Map(rows.map((row) => [row.id, row.version]));
  return records.map((record) => ({ value: record, version: versions.get(record.id)! }));
}

function getChild<T extends ChildRecordBase>({ connection, c, label }: ChildTables, organizationId: string, parentId: string, id: string): Promise<Versioned<T> | null> {
  return connection.run(`${label}.get`, async (db) => {
    const { rows } = await db.query<ChildRow>(
      `SELECT id, version, body FROM ${c} WHERE organization_id = $1 AND parent_id = $2 AND id = $3`,
      [organizationId, parentId, id],
    );
    return rows[0] ? { value: rows[0].body as T, version: rows[0].version } : null;
  });
}

function getManyChildren<T extends ChildRecordBase>({ connection, c, label }: ChildTables, organizationId: string, parentId: string, ids: readonly string[]): Promise<Array<Versioned<T> | null>> {
  return connection.run(`${label}.getMany`, async (db) => {
    if (ids.length === 0) return [];
    const { rows } = await db.query<ChildRow>(
      `SELECT id, version, body FROM ${c} WHERE organization_id = $1 AND parent_id = $2 AND id = ANY($3::text[])`,
      [organizationId, parentId, [...new Set(ids)]],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => {
      const row = byId.get(id);
      return row ? { value: structuredClone(row.body) as T, version: row.version } : null;
    });
  });
}

async function insertManyChildren<T extends ChildRecordBase>(t: ChildTables, records: readonly T[]): Promise<Array<Versioned<T>>> {
  const { connection, label } = t;
  if (records.length === 0) return connection.run(`${label}.insertMany`, async (): Promise<Array<Versioned<T>>> => []);
  const written = await connection.transaction(`${label}.insertMany`, async (db) => {
    const { organization_id: organizationId, parent_id: parentId } = records[0];
    const seen = new Set<string>();
    for (const record of records) {
      if (record.organization_id !== organizationId || record.parent_id !== parentId) throw mixedBatch(label);
      if (seen.has(record.id)) throw idRepeated(label, record.id);
      seen.add(record.id);
    }
    const parent = await lockOrCreateParent(t, db, organizationId, parentId);
    const sums = { ...parent.sums };
    for (const record of records) addInto(sums, record.totals, 1);
    const bytes = records.length >= COPY_AFTER ? await copyChildren(t, db, records, parent) : await insertChildren(t, db, records, parent);
    await saveParent(t, db, organizationId, parentId, { positions: records.length, count: records.length, sums });
    connection.reportWrite(label, bytes);
    return records.map((record) => ({ value: record, version: 1 }));
  });
  await analyzeAfterBulkInsert(t, records.length);
  return written;
}

function putChild<T extends ChildRecordBase>(t: ChildTables, record: T, expectedVersion: number | undefined): Promise<Versioned<T> | null> {
  const { connection, c, label } = t;
  return connection.transaction(`${label}.put`, async (db) => {
    const { organization_id: organizationId, parent_id: parentId, id } = record;
    const replaceOnly = expectedVersion !== undefined && expectedVersion > 0;
    const parent = replaceOnly
      ? await lockParent(t, db, organizationId, parentId)
      : await lockOrCreateParent(t, db, organizationId, parentId);
    if (!parent) return null;
    const { rows: existing } = await db.query<{ version: number; totals: Record<string, number> }>(
      `SELECT version, totals FROM ${c} WHERE organization_id = $1 AND parent_id = $2 AND id = $3`,
      [organizationId, parentId, id],
    );
    const current = existing[0];
    if (expectedVersion !== undefined && (current?.version ?? 0) !== expectedVersion) return null;
    const sums = { ...parent.sums };
    addInto(sums, record.totals, 1);
    const body = JSON.stringify(record);
    const totals = JSON.stringify(record.totals ?? {});
    let rows: ChildRow[];
    if (current) {
      addInto(sums, current.totals, -1);
      ({ rows } = await db.query<ChildRow>(
        `UPDATE ${c} SET version = version + 1, totals = $4::jsonb, body = $5::json
         WHERE organization_id = $1 AND parent_id = $2 AND id = $3
         RETURNING id, version, body`,
        [organizationId, parentId, id, totals, body],
      ));
      await saveParent(t, db, organizationId, parentId, { positions: 0, count: 0, sums });
    } else {
      ({ rows } = await db.query<ChildRow>(
        `INSERT INTO ${c} (organization_id, parent_id, id, version, position, totals, body)
         VALUES ($1, $2, $3, 1, $4, $5::jsonb, $6::json)
         RETURNING id, version, body`,
        [organizationId, parentId, id, parent.next_position, totals, body],
      ));
      await saveParent(t, db, organizationId, parentId, { positions: 1, count: 1, sums });
    }
    connection.reportWrite(label, Buffer.byteLength(body) + Buffer.byteLength(totals));
    return { value: rows[0].body as T, version: rows[0].version };
  });
}

function putManyChildren<T extends ChildRecordBase>(t: ChildTables, entries: ReadonlyArray<ChildPut<T>>): Promise<PutManyResult<T>> {
  const { connection, c, label } = t;
  if (entries.length === 0) return connection.run(`${label}.putMany`, async (): Promise<PutManyResult<T>> => ({ ok: true, records: [] }));
  return connection.transaction(`${label}.putMany`, async (db): Promise<PutManyResult<T>> => {
    checkPutManyShape(label, entries);
    const { organization_id: organizationId, parent_id: parentId } = entries[0]!.record;
    const replaceOnly = entries.every((e) => e.expectedVersion !== undefined && e.expectedVersion > 0);
    const parent = replaceOnly
      ? await lockParent(t, db, organizationId, parentId)
      : await lockOrCreateParent(t, db, organizationId, parentId);
    if (!parent) return { ok: false, conflicts: entries.map((_, i) => i) };
    const { rows: existing } = await db.query<{ id: string; version: number; totals: Record<string, number> }>(
      `SELECT id, version, totals FROM ${c} WHERE organization_id = $1 AND parent_id = $2 AND id = ANY($3::text[])`,
      [organizationId, parentId, entries.map((e) => e.record.id)],
    );
    const stored = new Map(existing.map((row) => [row.id, row]));
    const conflicts: number[] = [];
    entries.forEach(({ record, expectedVersion }, i) => {
      if (expectedVersion !== undefined && (stored.get(record.id)?.version ?? 0) !== expectedVersion) conflicts.push(i);
    });
    if (conflicts.length > 0) return { ok: false, conflicts };
    const sums = { ...parent.sums };
    const updates = entries.filter((e) => stored.has(e.record.id)).map((e) => e.record);
    const inserts = entries.filter((e) => !stored.has(e.record.id)).map((e) => e.record);
    for (const record of updates) addInto(sums, stored.get(record.id)!.totals, -1);
    for (const { record } of entries) addInto(sums, record.totals, 1);
    const { rows: written, bytes } = await writeRows(t, db, { organizationId, parentId, nextPosition: parent.next_position }, updates, inserts);
    await saveParent(t, db, organizationId, parentId, { positions: inserts.length, count: inserts.length, sums });
    connection.reportWrite(label, bytes);
    return { ok: true, records: asWritten(entries.map((e) => e.record), written) };
  });
}

/**
 * putMany's writes: one UPDATE of the stored children, one INSERT of the new ones (positions from `nextPosition`);
 * the rows' new versions and the bytes of JSON sent.
 */
async function writeRows(
  { c }: ChildTables,
  db: Queryable,
  at: { organizationId: string; parentId: string; nextPosition: string },
  updates: ChildRecordBase[],
  inserts: ChildRecordBase[],
): Promise<{ rows: Array<{ id: string; version: number }>; bytes: number }> {
  const rows: Array<{ id: string; version: number }> = [];
  let bytes = 0;
  if (updates.length > 0) {
    const json = JSON.stringify(updates);
    bytes += Buffer.byteLength(json);
    const updated = await db.query<{ id: string; version: number }>(
      `UPDATE ${c} AS t SET version = t.version + 1, totals = u.totals, body = u.value
       FROM ${ELEMENTS(3)}
       WHERE t.organization_id = $1 AND t.parent_id = $2 AND t.id = u.id
       RETURNING t.id, t.version`,
      [at.organizationId, at.parentId, json],
    );
    rows.push(...updated.rows);
  }
  if (inserts.length > 0) {
    const json = JSON.stringify(inserts);
    bytes += Buffer.byteLength(json);
    const inserted = await db.query<{ id: string; version: number }>(
      `INSERT INTO ${c} (organization_id, parent_id, id, version, position, totals, body)
       SELECT $1, $2, u.id, 1, $3::bigint + u.ord - 1, u.totals, u.value
       FROM ${ELEMENTS(4)}
       RETURNING id, version`,
      [at.organizationId, at.parentId, at.nextPosition, json],
    );
    rows.push(...inserted.rows);
  }
  return { rows, bytes };
}

function deleteChild(t: ChildTables, organizationId: string, parentId: string, id: string, expectedVersion: number | undefined): Promise<boolean> {
  const { connection, c, label } = t;
  return connection.transaction(`${label}.delete`, async (db) => {
    const parent = await lockParent(t, db, organizationId, parentId);
    if (!parent) return false;
    const values: unknown[] = [organizationId, parentId, id];
    if (expectedVersion !== undefined) values.push(expectedVersion);
    const { rows } = await db.query<{ totals: Record<string, number> }>(
      `DELETE FROM ${c} WHERE organization_id = $1 AND parent_id = $2 AND id = $3
       ${expectedVersion !== undefined ? 'AND version = $4' : ''} RETURNING totals`,
      values,
    );
    if (!rows[0]) return false;
    const sums = { ...parent.sums };
    addInto(sums, rows[0].totals, -1);
    await saveParent(t, db, organizationId, parentId, {
      positions: 0,
      count: -1,
      sums: Number(parent.count) === 1 ? {} : sums,
    });
    connection.reportWrite(label, Buffer.byteLength(id));
    return true;
  });
}

function deleteAllChildren(t: ChildTables, organizationId: string, parentId: string): Promise<number> {
  const { connection, c, p, label } = t;
  return connection.transaction(`${label}.deleteAll`, async (db) => {
    const parent = await lockParent(t, db, organizationId, parentId);
    if (!parent) return 0;
    const removed = await db.query(`DELETE FROM ${c} WHERE organization_id = $1 AND parent_id = $2`, [organizationId, parentId]);
    await db.query(`DELETE FROM ${p} WHERE organization_id = $1 AND parent_id = $2`, [organizationId, parentId]);
    return removed.rowCount ?? 0;
  });
}

function listChildren<T extends ChildRecordBase>(
  { connection, c, label }: ChildTables,
  organizationId: string,
  parentId: string,
  query: ChildPageQuery,
): Promise<RecordPage<T> | null> {
  return connection.run(`${label}.list`, async (db) => {
    const limit = Math.max(0, Math.floor(query.limit));
    let from = '0';
    if (query.after !== undefined) {
      const { rows } = await db.query<{ position: string }>(
        `SELECT position FROM ${c} WHERE organization_id = $1 AND parent_id = $2 AND id = $3`,
        [organizationId, parentId, query.after],
      );
      if (!rows[0]) return null;
      from = rows[0].position;
    }
    const { rows } = await db.query<ChildRow>(
      `SELECT id, version, body FROM ${c} WHERE ${PARENT_KEY} = ARRAY[$1, $2]::text[] AND position > $3
       ORDER BY position LIMIT $4`,
      [organizationId, parentId, from, limit + 1],
    );
    return { items: rows.slice(0, limit).map((row) => row.body as T), has_more: rows.length > limit };
  });
}

function childTotals({ connection, p, label }: ChildTables, organizationId: string, parentId: string): Promise<ChildTotals> {
  return connection.run(`${label}.totals`, async (db): Promise<ChildTotals> => {
    const { rows } = await db.query<{ count: string; sums: Record<string, number> }>(
      `SELECT count, sums FROM ${p} WHERE organization_id = $1 AND parent_id = $2`,
      [organizationId, parentId],
    );
    return rows[0] ? { count: Number(rows[0].count), sums: rows[0].sums } : noTotals();
  });
}
