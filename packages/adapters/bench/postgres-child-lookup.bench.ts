/**
 * Benchmark (not a test): the store's half of one annotation PUT (the document read, then written back at the
 * version read; its prediction likewise) in an evaluation of 200 to 100,000 documents with one iteration, PostgreSQL, right after the bulk insert that created them ("fresh": the
 * statistics are what the store left) and after an explicit `ANALYZE` ("analyzed"). For each it prints the
 * shared-buffer blocks per PUT (a count the machine's load does not move), the median time, and the plan of the
 * prediction's lookup by id (`EXPLAIN (ANALYZE, BUFFERS)`): issue 31 asks the lookup to use the primary key whatever the
 * statistics, and blocks per PUT flat (<= 1.5x) from 200 to 100,000 documents.
 *
 * Run: `pnpm bench postgres-child-lookup` (DATABASE_URL when set, else a throwaway PostgreSQL, autovacuum off so
 * that nothing analyzes the tables behind the benchmark's back). `BENCH_SIZES=200,1000` to choose sizes.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Pool } from 'pg';
import type { DocumentRecord, PredictionRecord } from '@docevals/core';
import { postgresStorage } from '@docevals/adapters/postgres';
import { pgPrediction } from '../test/support/postgres-fixtures.js';
import { startPostgresServer, type PostgresServerHandle } from '../../../test-support/postgres-global-setup.js';

const SIZES = (process.env.BENCH_SIZES ?? '200,1000,10000,100000').split(',').map(Number);
const PUTS = 300;
const ORG = 'org_bench';

let server: PostgresServerHandle | undefined;
const url = process.env.DATABASE_URL ?? (server = await startPostgresServer({ extraArgs: ['-c', 'fsync=off', '-c', 'autovacuum=off'] })).url;
const admin = new Pool({ connectionString: url, max: 1 });
admin.on('error', () => undefined);
const lines: string[] = [];

try {
  for (const size of SIZES) {
    // A fresh schema per size: the tables have never been analyzed before the bulk insert.
    const schema = `docevals_lookup_${randomBytes(4).toString('hex')}`;
    const pool = new Pool({ connectionString: url, max: 1 });
    pool.on('error', () => undefined);
    const storage = postgresStorage({ pool, schema });
    try {
      const now = new Date().toISOString();
      const docs: DocumentRecord[] = Array.from({ length: size }, (_, i) => ({
        id: `file_${i.toString(36).padStart(6, '0')}${randomBytes(6).toString('hex')}`,
        organization_id: ORG,
        parent_id: 'eval_target',
        updated_at: now,
        filename: `invoice-${i}.pdf`,
        mime_type: 'application/pdf',
        size: 4096,
        annotation: { invoice_number: `INV-${i}`, total: i, vendor: 'ACME Corporation' },
        annotation_metadata: null,
        revision: `rev_${i}_0`,
      }));
      const started = performance.now();
      for (let i = 0; i < docs.length; i += 10_000) await storage.documents.insertMany(docs.slice(i, i + 10_000));
      const predictions: PredictionRecord[] = docs.map((d) => pgPrediction(ORG, 'it_target', d.id, 0.5));
      for (let i = 0; i < predictions.length; i += 10_000) await storage.predictions.insertMany(predictions.slice(i, i + 10_000));
      const insertMs = performance.now() - started;
      for (const state of ['fresh', 'analyzed'] as const) {
        if (state === 'analyzed') await admin.query(`ANALYZE ${schema}.documents`);
        let k = 0;
        // What an annotation PUT does to the store: the document read and written at its version, then its
        // prediction read and written at its version.
        const put = async () => {
          const id = docs[(k * 7919) % size]!.id;
          const current = (await storage.documents.get(ORG, 'eval_target', id))!;
          await storage.documents.put({ ...current.value, annotation: { ...current.value.annotation, total: k++ } }, current.version);
          const prediction = (await storage.predictions.get(ORG, 'it_target', id))!;
          await storage.predictions.put({ ...prediction.value, updated_at: new Date().toISOString() }, prediction.version);
        };
        for (let i = 0; i < 50; i++) await put();
        const before = await blocks(pool);
        const times: number[] = [];
        for (let i = 0; i < PUTS; i++) {
          const t = performance.now();
          await put();
          times.push(performance.now() - t);
        }
        const perPut = ((await blocks(pool)) - before) / PUTS;
        times.sort((a, b) => a - b);
        const plan = await pool.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id, version, body FROM ${schema}.predictions WHERE organization_id = $1 AND parent_id = $2 AND id = $3`,
          [ORG, 'it_target', docs[size >> 1]!.id],
        );
        const scan = plan.rows.map((r) => r['QUERY PLAN'].trim()).filter((l) => /Scan|Buffers/.test(l)).slice(0, 2).join('; ');
        const line = `${String(size).padStart(7)} documents, ${state.padEnd(8)}: ${perPut.toFixed(1).padStart(6)} blocks per PUT, median ${times[PUTS >> 1]!.toFixed(2)} ms; lookup: ${scan}; insert ${insertMs.toFixed(0)} ms; load ${loadavg()[0]!.toFixed(2)}`;
        console.log(line);
        lines.push(line);
      }
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await storage.close();
      await pool.end().catch(() => undefined);
    }
  }
  console.log(`\n${lines.join('\n')}\nload average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await admin.end();
  await server?.stop();
}

/** Shared-buffer blocks (hit or read) the database touched so far, both connections' counts flushed first. */
async function blocks(pool: Pool): Promise<number> {
  for (const connection of [pool, admin]) await connection.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await admin.query<{ blocks: string }>('SELECT blks_hit + blks_read AS blocks FROM pg_stat_database WHERE datname = current_database()');
  return Number(rows[0]!.blocks);
}
