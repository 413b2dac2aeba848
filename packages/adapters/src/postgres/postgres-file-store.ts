import type { FileStore, StoredFile } from '@docevals/core';
import { copyBytes } from '@docevals/core/storage-kit';
import type { PostgresConnection, Queryable } from './postgres-connection.js';

/** The files table and the connection that reaches it. */
interface FileTable {
  connection: PostgresConnection;
  f: string;
}

/**
 * The file store as one table: a row per (organization, file id) with the bytes (`bytea`), the media type and the
 * reference count. Retain is an upsert that adds references; release subtracts them and deletes the rows that
 * reach zero, in one transaction. The batch forms send every file of the batch in one statement.
 */
export function postgresFileStore(connection: PostgresConnection, schema: string): FileStore {
  const t: FileTable = { connection, f: `${schema}.files` };
  const { f } = t;

  return {
    retain(organizationId, fileId, content) {
      return connection.run('files.retain', async (db) => (await retainAll(t, db, organizationId, [{ fileId, content }])).has(fileId));
    },
    release(organizationId, fileId) {
      return connection.transaction('files.release', (db) => releaseAll(t, db, organizationId, [fileId]));
    },
    get(organizationId, fileId) {
      return connection.run('files.get', async (db) => {
        const { rows } = await db.query<{ bytes: Buffer; mime_type: string }>(
          `SELECT bytes, mime_type FROM ${f} WHERE organization_id = $1 AND file_id = $2`,
          [organizationId, fileId],
        );
        return rows[0] ? { bytes: copyBytes(rows[0].bytes), mime_type: rows[0].mime_type } : null;
      });
    },
    getMany(organizationId, fileIds) {
      return connection.run('files.getMany', async (db) => {
        if (fileIds.length === 0) return [];
        const { rows } = await db.query<{ file_id: string; bytes: Buffer; mime_type: string }>(
          `SELECT file_id, bytes, mime_type FROM ${f} WHERE organization_id = $1 AND file_id = ANY($2::text[])`,
          [organizationId, [...new Set(fileIds)]],
        );
        const byId = new Map(rows.map((row) => [row.file_id, row]));
        return fileIds.map((id) => {
          const row = byId.get(id);
          return row ? { bytes: copyBytes(row.bytes), mime_type: row.mime_type } : null;
        });
      });
    },
    retainMany(organizationId, entries) {
      return connection.run('files.retainMany', async (db) => {
        if (entries.length === 0) return [];
        const present = await retainAll(t, db, organizationId, entries);
        return entries.map(({ fileId }) => present.has(fileId));
      });
    },
    releaseMany(organizationId, fileIds) {
      return connection.transaction('files.releaseMany', (db) => (fileIds.length === 0 ? Promise.resolve() : releaseAll(t, db, organizationId, fileIds)));
    },
  };
}

/**
 * Adds `entries`' references in one statement (atomic on its own): files with content are upserted (an existing
 * file keeps its content), files without are counted up only where they exist. Returns the ids that exist now.
 */
async function retainAll(
  { connection, f }: FileTable,
  db: Queryable,
  organizationId: string,
  entries: ReadonlyArray<{ fileId: string; content?: StoredFile }>,
): Promise<Set<string>> {
  // An id given twice gets two references; one statement may touch a row only once, so count them first.
  const grouped = new Map<string, { refs: number; content?: StoredFile }>();
  for (const { fileId, content } of entries) {
    const entry = grouped.get(fileId) ?? { refs: 0 };
    entry.refs += 1;
    entry.content ??= content;
    grouped.set(fileId, entry);
  }
  // In id order, so that two batches lock shared rows in the same order.
  const sorted = [...grouped].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const withContent = sorted.filter(([, e]) => e.content !== undefined);
  const without = sorted.filter(([, e]) => e.content === undefined);
  const { rows } = await db.query<{ file_id: string }>(
    `WITH added AS (
       INSERT INTO ${f} (organization_id, file_id, mime_type, bytes, refs)
       SELECT $1, u.file_id, u.mime_type, u.bytes, u.refs
       FROM unnest($2::text[], $3::text[], $4::bytea[], $5::int[]) AS u(file_id, mime_type, bytes, refs)
       ON CONFLICT (organization_id, file_id) DO UPDATE SET refs = ${f}.refs + excluded.refs, touched_at = now()
       RETURNING file_id
     ), counted AS (
       UPDATE ${f} AS t SET refs = t.refs + u.refs, touched_at = now()
       FROM unnest($6::text[], $7::int[]) AS u(file_id, refs)
       WHERE t.organization_id = $1 AND t.file_id = u.file_id
       RETURNING t.file_id
     )
     SELECT file_id FROM added UNION ALL SELECT file_id FROM counted`,
    [
      organizationId,
      withContent.map(([id]) => id),
      withContent.map(([, e]) => e.content!.mime_type),
      withContent.map(([, e]) => Buffer.from(e.content!.bytes.buffer, e.content!.bytes.byteOffset, e.content!.bytes.byteLength)),
      withContent.map(([, e]) => e.refs),
      without.map(([id]) => id),
      without.map(([, e]) => e.refs),
    ],
  );
  connection.reportWrite(
    'files',
    withContent.reduce((n, [, e]) => n + e.content!.bytes.byteLength, 0) + grouped.size * 16,
  );
  return new Set(rows.map((row) => row.file_id));
}

/**
 * Removes `fileIds`' references and deletes the files that reach zero. Run inside a transaction: the rows are
 * locked (in id order, so two batches never deadlock) before they change, and nothing can retain a file between
 * its count reaching zero and its deletion.
 */
async function releaseAll({ connection, f }: FileTable, db: Queryable, organizationId: string, fileIds: readonly string[]): Promise<void> {
  const counts = new Map<string, number>();
  for (const id of fileIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  const ids = [...counts.keys()].sort();
  await db.query(`SELECT 1 FROM ${f} WHERE organization_id = $1 AND file_id = ANY($2::text[]) ORDER BY file_id FOR UPDATE`, [
    organizationId,
    ids,
  ]);
  await db.query(
    `UPDATE ${f} AS t SET refs = t.refs - u.refs, touched_at = now()
     FROM unnest($2::text[], $3::int[]) AS u(file_id, refs)
     WHERE t.organization_id = $1 AND t.file_id = u.file_id`,
    [organizationId, ids, ids.map((id) => counts.get(id)!)],
  );
  await db.query(`DELETE FROM ${f} WHERE organization_id = $1 AND file_id = ANY($2::text[]) AND refs <= 0`, [organizationId, ids]);
  connection.reportWrite('files', ids.length * 16);
}
