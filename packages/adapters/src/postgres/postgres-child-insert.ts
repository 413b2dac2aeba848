import type { ChildRecordBase } from '@docevals/core';
import { idTaken } from '@docevals/core/storage-kit';
import type { Queryable } from './postgres-connection.js';
import { copyIn, copyJson, copyText, CopyRows } from './postgres-copy.js';

/** Where an insertMany writes: the children's table and the collection's name for errors. */
interface InsertTarget {
  c: string;
  label: string;
}

/** The parent's row, locked by the caller: the position of the first new child, and how many it has. */
interface InsertParent {
  next_position: string;
  count: string;
}

/**
 * The rows of a JSON array parameter `$n` (the records, one `JSON.stringify`: as three `text[]` parameters they cost
 * node-postgres an escape of every character of every record, a bulk insert's main CPU cost): `e.value` (the record
 * as `json`, its text as sent),
 * `e.ord` (1-based), `id` and `totals` (`{}` when the record has none) from it.
 */
export const ELEMENTS = (n: number) =>
  `(SELECT e.value, e.ord, e.value->>'id' AS id, COALESCE(NULLIF((e.value->'totals')::jsonb, 'null'::jsonb), '{}'::jsonb) AS totals
    FROM json_array_elements($${n}::json) WITH ORDINALITY AS e(value, ord)) AS u`;

/** The smallest insertMany written with COPY: below it, one INSERT saves COPY's extra round trip. */
export const COPY_AFTER = 64;

/** One INSERT of the records as a JSON array; a taken id fails the batch. Answers the bytes of record data sent. */
export async function insertChildren(t: InsertTarget, db: Queryable, records: readonly ChildRecordBase[], parent: InsertParent): Promise<number> {
  const { c, label } = t;
  const { organization_id: organizationId, parent_id: parentId } = records[0]!;
  const json = JSON.stringify(records);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO ${c} (organization_id, parent_id, id, version, position, totals, body)
     SELECT $1, $2, u.id, 1, $3::bigint + u.ord - 1, u.totals, u.value
     FROM ${ELEMENTS(4)}
     ON CONFLICT (organization_id, parent_id, id) DO NOTHING
     RETURNING id`,
    [organizationId, parentId, parent.next_position, json],
  );
  if (rows.length < records.length) {
    const inserted = new Set(rows.map((row) => row.id));
    throw idTaken(label, records.find((r) => !inserted.has(r.id))!.id); // rolls the whole batch back
  }
  return Buffer.byteLength(json);
}

/**
 * The records as rows of one `COPY ... FROM STDIN`: the server parses each record's JSON once (the INSERT above
 * parses the array, then each element again for its id and its totals: twice the server's CPU for a build's 60 MB).
 * COPY has no ON CONFLICT, so a parent that has children is asked first which of the ids it holds (under the
 * parent's lock, which every insert takes: none can appear meanwhile); a new parent has none. Answers the bytes sent.
 */
export async function copyChildren(t: InsertTarget, db: Queryable, records: readonly ChildRecordBase[], parent: InsertParent): Promise<number> {
  const { c, label } = t;
  const { organization_id: organizationId, parent_id: parentId } = records[0]!;
  if (Number(parent.count) > 0) {
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM ${c} WHERE organization_id = $1 AND parent_id = $2 AND id = ANY($3::text[]) LIMIT 1`,
      [organizationId, parentId, records.map((r) => r.id)],
    );
    if (rows[0]) throw idTaken(label, rows[0].id);
  }
  const head = `${copyText(organizationId)}\t${copyText(parentId)}\t`;
  const first = Number(parent.next_position);
  const rows = new CopyRows();
  records.forEach((record, i) => {
    const totals = record.totals == null ? '{}' : JSON.stringify(record.totals);
    rows.push(`${head}${copyText(record.id)}\t1\t${first + i}\t${totals}\t${copyJson(JSON.stringify(record))}\n`);
  });
  await copyIn(db, `COPY ${c} (organization_id, parent_id, id, version, position, totals, body) FROM STDIN`, rows.done());
  return rows.bytes;
}

