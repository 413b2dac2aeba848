import type { ChildCollection, DocumentRecord, IterationEventRecord, IterationRecord, PredictionRecord, RecordCollection } from '@docevals/core';
import type { PostgresConnection } from './postgres-connection.js';

/** What `sweep()` reclaimed. */
export interface PostgresSweepReport {
  /** Documents whose evaluation is gone, predictions whose iteration is gone (or whose iteration was swept). */
  orphanChildren: number;
  /** Iterations that no evaluation lists (and their predictions). */
  orphanIterations: number;
  /** File reference counts set to the number of documents holding the file (a file nobody holds: removed). */
  fileReferencesFixed: number;
}

/** Options of `sweep()`. */
export interface PostgresSweepOptions {
  /**
   * Only what has not changed for this long is reclaimed, so an operation under way on another server (an
   * iteration inserted, not yet listed by its evaluation; files retained, documents not yet inserted) is left alone.
   * @default 600000 (10 minutes)
   */
  olderThanMs?: number;
}

interface Collections {
  iterations: RecordCollection<IterationRecord>;
  documents: ChildCollection<DocumentRecord>;
  predictions: ChildCollection<PredictionRecord>;
  events: ChildCollection<IterationEventRecord>;
}

/**
 * Reclaims what a crash can leave between two writes of one service operation (issue 13 L3), for what has not
 * changed for `olderThanMs`: iterations no evaluation lists (with their predictions), documents whose evaluation is
 * gone, predictions whose iteration is gone, and file reference counts that do not match the documents holding the
 * file. Finds them with set queries (anti-joins); removes them through the collections (iterations at the version
 * read) and corrects counts in one statement that re-checks the grace period, so it is safe beside live writers.
 */
export async function sweepOrphans(
  connection: PostgresConnection,
  s: string,
  collections: Collections,
  options: PostgresSweepOptions = {},
): Promise<PostgresSweepReport> {
  const report: PostgresSweepReport = { orphanChildren: 0, orphanIterations: 0, fileReferencesFixed: 0 };
  const olderThanMs = options.olderThanMs ?? 600_000;
  const cutoff = new Date(Date.now() - olderThanMs).toISOString();

  const iterations = await connection.run('sweep.iterations', async (db) =>
    (
      await db.query<{ organization_id: string; id: string; version: number }>(
        `SELECT i.organization_id, i.id, i.version FROM ${s}.iterations i
         WHERE i.updated_at < $1 AND NOT EXISTS (
           SELECT 1 FROM ${s}.evaluations e
           WHERE e.organization_id = i.organization_id AND e.id = i.body->>'evaluation_id'
             AND (e.body->'iteration_ids')::jsonb ? i.id)`,
        [cutoff],
      )
    ).rows,
  );
  for (const it of iterations) {
    if (!(await collections.iterations.delete(it.organization_id, it.id, it.version))) continue;
    report.orphanIterations++;
    report.orphanChildren += await collections.predictions.deleteAll(it.organization_id, it.id);
    report.orphanChildren += await collections.events.deleteAll(it.organization_id, it.id);
  }

  const orphanParents = (children: string, parents: string) =>
    connection.run(`sweep.${children}`, async (db) =>
      (
        await db.query<{ organization_id: string; parent_id: string }>(
          `SELECT p.organization_id, p.parent_id FROM ${s}.${children}_parents p
           WHERE NOT EXISTS (SELECT 1 FROM ${s}.${parents} r WHERE r.organization_id = p.organization_id AND r.id = p.parent_id)
             AND NOT EXISTS (SELECT 1 FROM ${s}.${children} c
                             WHERE c.organization_id = p.organization_id AND c.parent_id = p.parent_id
                               AND c.body->>'updated_at' >= $1)`,
          [cutoff],
        )
      ).rows,
    );
  for (const p of await orphanParents('documents', 'evaluations')) {
    report.orphanChildren += await collections.documents.deleteAll(p.organization_id, p.parent_id);
  }
  for (const p of await orphanParents('predictions', 'iterations')) {
    report.orphanChildren += await collections.predictions.deleteAll(p.organization_id, p.parent_id);
  }
  for (const p of await orphanParents('events', 'iterations')) {
    report.orphanChildren += await collections.events.deleteAll(p.organization_id, p.parent_id);
  }

  // Documents are what hold file references (one each). A retain or release moves touched_at, and the UPDATE
  // re-checks it on the row it locks: a file in use by an operation under way is left alone.
  report.fileReferencesFixed = await connection.transaction('sweep.files', async (db) => {
    const interval = `${olderThanMs} milliseconds`;
    const fixed = await db.query<{ file_id: string }>(
      `UPDATE ${s}.files f SET refs = h.holders
       FROM (SELECT f2.organization_id, f2.file_id,
                    (SELECT count(*) FROM ${s}.documents d
                     WHERE ARRAY[d.organization_id, d.id] = ARRAY[f2.organization_id, f2.file_id])::int AS holders
             FROM ${s}.files f2 WHERE f2.touched_at < now() - $1::interval) h
       WHERE f.organization_id = h.organization_id AND f.file_id = h.file_id
         AND f.refs <> h.holders AND f.touched_at < now() - $1::interval
       RETURNING f.file_id`,
      [interval],
    );
    await db.query(`DELETE FROM ${s}.files WHERE refs <= 0`);
    return fixed.rowCount ?? 0;
  });
  return report;
}
