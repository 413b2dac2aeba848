/**
 * Benchmark (not a test): the Postgres adapter as the store grows from 10 to 100,000 documents in other evaluations
 * (each with its own 4 KB file):
 * - an annotation update through the service (`evals.documents.update`: the document's compare-and-set, and the
 *   prediction of each iteration with its metrics and the iteration's running totals);
 * - the storage half of that update: the document's `get` and `put` at the version read;
 * - a prediction `put` at the storage level (one child write with its parent's totals, one transaction);
 * and, once, the creation of a 10,000-document evaluation through the service (one `retainMany`, one `insertMany`,
 * one record).
 *
 * Run: `pnpm bench postgres` (uses DATABASE_URL when set, else starts a throwaway PostgreSQL on a free port, with
 * fsync on). Prints tables and writes a report to .tmp/benchmarks/postgres.md (untracked); docs/benchmarks.md keeps
 * the figures.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'pg';
import { createDocevals, localRulesExtractor, type DocumentRecord } from '@docevals/core';
import { postgresStorage } from '@docevals/adapters/postgres';
import { pgPrediction } from '../test/support/postgres-fixtures.js';
import { startPostgresServer, type PostgresServerHandle } from '../../../test-support/postgres-global-setup.js';

const SIZES = [10, 100, 1_000, 10_000, 100_000];
const DOCUMENTS_PER_EVALUATION = 1_000;
const FILE_BYTES = 4 * 1024;
const TARGET_DOCUMENTS = 10;
const WARMUP = 200;
const ROUNDS = 5;
const UPDATES_PER_ROUND = 200;
const CREATE_DOCUMENTS = 10_000;
const ORG = 'org_bench';

let server: PostgresServerHandle | undefined;
/** BENCH_FSYNC=on measures with the disk flush of each commit (a constant per commit, whatever the database's size). */
const FSYNC = process.env.BENCH_FSYNC === 'on';
const url =
  process.env.DATABASE_URL ??
  (server = await startPostgresServer({ extraArgs: ['-c', `fsync=${FSYNC ? 'on' : 'off'}`, '-c', 'autovacuum=off'] })).url;
const schema = `docevals_bench_${randomBytes(4).toString('hex')}`;
/** One connection: every call of the benchmark is sequential, and its block counts can be flushed on demand. */
const pool = new Pool({ connectionString: url, max: 1 });
const storage = postgresStorage({ pool, schema });
const admin = new Pool({ connectionString: url, max: 1 });
// The benchmark's own pools: an idle connection the server closes at the end must not crash it.
for (const p of [pool, admin]) p.on('error', () => undefined);
const docevals = createDocevals({ storage, extractors: [localRulesExtractor()] });
const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };
const text = (s: string) => `data:text/plain;base64,${Buffer.from(s).toString('base64')}`;

type Stats = { median: number; p95: number; p99: number; mean: number; blocks: number };
interface Row {
  documents: number;
  databaseMb: number;
  update: Stats;
  documentCas: Stats;
  predictionPut: Stats;
}

try {
  const target = await docevals.evals.create(ORG, {
    name: 'target',
    json_schema: SCHEMA,
    default_inference_settings: { model: 'local-rules' },
    documents: Array.from({ length: TARGET_DOCUMENTS }, (_, i) => ({
      mime_data: { filename: `t-${i}.txt`, url: text(`Invoice number: T-${i}\nTotal: ${i}\n`) },
      annotation: { invoice_number: `T-${i}`, total: i },
    })),
  });
  await docevals.evals.iterations.create(ORG, { evaluation_id: target.id });
  // The first series of a process also measured V8 tiering up the service's code (5 to 10 ms medians where later
  // sizes gave 1 ms): 2,000 untimed updates first.
  for (let i = 0; i < 2_000; i++) {
    await docevals.evals.documents.update(ORG, {
      evaluation_id: target.id,
      document_id: target.documents[i % TARGET_DOCUMENTS]!.id,
      annotation: { invoice_number: `T-${i % TARGET_DOCUMENTS}`, total: -i },
    });
  }
  const rows: Row[] = [];
  let stored = 0;
  let evaluations = 0;
  for (const size of SIZES) {
    while (stored < size) {
      const count = Math.min(DOCUMENTS_PER_EVALUATION, size - stored);
      await addEvaluation(`eval_other_${evaluations++}`, count);
      stored += count;
    }
    await admin.query('VACUUM ANALYZE');
    let n = 0;
    const update = await measure(async () => {
      const i = n++;
      await docevals.evals.documents.update(ORG, {
        evaluation_id: target.id,
        document_id: target.documents[i % TARGET_DOCUMENTS]!.id,
        annotation: { invoice_number: `T-${i % TARGET_DOCUMENTS}`, total: i },
      });
    });
    let k = 0;
    const documentCas = await measure(async () => {
      // The storage half of an annotation update: read the document, write it back at the version read.
      const id = target.documents[k % TARGET_DOCUMENTS]!.id;
      const current = (await storage.documents.get(ORG, target.id, id))!;
      const annotation = { ...current.value.annotation, total: k++ };
      await storage.documents.put({ ...current.value, annotation, revision: `rev_${k}` }, current.version);
    });
    let m = 0;
    const predictionPut = await measure(() => storage.predictions.put(pgPrediction(ORG, 'it_target', `doc_${m++ % TARGET_DOCUMENTS}`, Math.random())));
    const size_ = await admin.query<{ mb: number }>('SELECT pg_database_size(current_database()) / 1048576.0 AS mb');
    rows.push({ documents: size, databaseMb: Number(size_.rows[0]!.mb), update, documentCas, predictionPut });
    console.log(
      `${size} documents: annotation update median ${update.median.toFixed(3)} ms (${update.blocks.toFixed(0)} blocks); ` +
        `document get + put median ${documentCas.median.toFixed(3)} ms (${documentCas.blocks.toFixed(0)} blocks); ` +
        `prediction put median ${predictionPut.median.toFixed(3)} ms (${predictionPut.blocks.toFixed(0)} blocks)`,
    );
  }

  const documents = Array.from({ length: CREATE_DOCUMENTS }, (_, i) => ({
    mime_data: { filename: `big-${i}.txt`, url: text(`Invoice number: B-${i}\nTotal: ${i}\n${'x'.repeat(200)}`) },
    annotation: { invoice_number: `B-${i}`, total: i },
  }));
  const createTimes: number[] = [];
  for (let r = 0; r < 3; r++) {
    const started = performance.now();
    await docevals.evals.create(ORG, { name: `big-${r}`, json_schema: SCHEMA, documents, default_inference_settings: { model: 'local-rules' } });
    createTimes.push(performance.now() - started);
    console.log(`create with ${CREATE_DOCUMENTS} documents: ${(createTimes[r]! / 1000).toFixed(2)} s`);
  }
  const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  const table = renderTable(rows);
  console.log(`\n${table}`);
  writeReport(table, createTimes, version);
} finally {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  await storage.close();
  await pool.end();
  await admin.end();
  await server?.stop();
}

/** Another evaluation with `count` documents, each retaining its own file, written as the service writes them. */
async function addEvaluation(id: string, count: number): Promise<void> {
  const now = new Date().toISOString();
  const docs: DocumentRecord[] = Array.from({ length: count }, (_, i) => ({
    id: `file_${id}_${i}`,
    organization_id: ORG,
    parent_id: id,
    updated_at: now,
    filename: `invoice-${i}.pdf`,
    mime_type: 'application/pdf',
    size: FILE_BYTES,
    annotation: { invoice_number: `INV-${i}`, total: i },
    annotation_metadata: null,
    revision: `rev_${i}_0`,
  }));
  await storage.files.retainMany(
    ORG,
    docs.map((d) => ({ fileId: d.id, content: { bytes: randomBytes(FILE_BYTES), mime_type: 'application/pdf' } })),
  );
  await storage.documents.insertMany(docs);
  await storage.evaluations.insert({
    id,
    organization_id: ORG,
    updated_at: now,
    created_at: now,
    name: id,
    project_id: 'proj_bench',
    json_schema: SCHEMA,
    schema_id: 'sch',
    schema_data_id: 'sch_data',
    default_inference_settings: { model: 'local-rules' },
    document_count: count,
    iteration_ids: [],
  });
}

/**
 * Shared-buffer blocks the database has touched so far (hit or read): a measure of work that does not depend on
 * what else the machine runs. Both connections are made to report their counts first (a backend otherwise reports
 * them up to 10 s late).
 */
async function blocksTouched(): Promise<number> {
  // Both connections: the admin one ran VACUUM, whose reads would otherwise be reported inside a measurement.
  for (const connection of [pool, admin]) {
    await connection.query('SELECT pg_stat_force_next_flush()');
    await connection.query('SELECT 1');
  }
  const { rows } = await admin.query<{ blocks: string }>(
    'SELECT blks_hit + blks_read AS blocks FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]!.blocks);
}

/**
 * ROUNDS × UPDATES_PER_ROUND sequential calls after WARMUP untimed ones; each statistic is its median over rounds,
 * and `blocks` the buffer blocks touched per call over all rounds.
 */
async function measure(call: () => Promise<unknown>): Promise<Stats> {
  for (let i = 0; i < WARMUP; i++) await call();
  const blocksBefore = await blocksTouched();
  const rounds: Array<Omit<Stats, 'blocks'>> = [];
  for (let r = 0; r < ROUNDS; r++) {
    const timings: number[] = [];
    for (let i = 0; i < UPDATES_PER_ROUND; i++) {
      const started = performance.now();
      await call();
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    const pick = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]!;
    rounds.push({ median: pick(0.5), p95: pick(0.95), p99: pick(0.99), mean: timings.reduce((a, b) => a + b, 0) / timings.length });
  }
  const blocks = ((await blocksTouched()) - blocksBefore) / (ROUNDS * UPDATES_PER_ROUND);
  const medianOf = (key: keyof Omit<Stats, 'blocks'>) => rounds.map((round) => round[key]).sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
  return { median: medianOf('median'), p95: medianOf('p95'), p99: medianOf('p99'), mean: medianOf('mean'), blocks };
}

function renderTable(rows: Row[]): string {
  const ms = (s: Stats) => `${s.median.toFixed(2)} / ${s.p95.toFixed(2)} / ${s.p99.toFixed(2)} ms, ${s.blocks.toFixed(0)} blocks`;
  return [
    '| documents in other evaluations | database size | annotation update (service): median / p95 / p99, blocks per call | document get + put at its version (storage): same | prediction put (storage): same |',
    '|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) => `| ${r.documents.toLocaleString('en-US')} | ${r.databaseMb.toFixed(0)} MB | ${ms(r.update)} | ${ms(r.documentCas)} | ${ms(r.predictionPut)} |`,
    ),
  ].join('\n');
}

function writeReport(table: string, createTimes: number[], version: string): void {
  const path = fileURLToPath(new URL('../../../.tmp/benchmarks/postgres.md', import.meta.url));
  mkdirSync(dirname(path), { recursive: true });
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  writeFileSync(
    path,
    `# Postgres adapter: annotation update and prediction put as the store grows; a 10,000-document create

Generated by \`pnpm bench postgres\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, PostgreSQL ${version} on
loopback${process.env.DATABASE_URL ? ' (DATABASE_URL)' : `, started by the benchmark with fsync ${FSYNC ? 'on' : 'off'}`}, ${cpus().length} × ${cpu}; load average at the end ${loadavg()[0].toFixed(1)}.
${ROUNDS} rounds of ${UPDATES_PER_ROUND} sequential calls after ${WARMUP} untimed ones, on one connection; each time is the median of its
per-round values; blocks are the shared-buffer blocks (hit or read) the database touched per call, a measure of work
that the machine's load does not move. Autovacuum off (the benchmark runs VACUUM ANALYZE after each growth step).

${table}

Create of an evaluation with ${CREATE_DOCUMENTS.toLocaleString('en-US')} text documents through the service: ${createTimes.map((t) => `${(t / 1000).toFixed(2)} s`).join(', ')}.
`,
  );
  console.log(`written to ${path}`);
}
