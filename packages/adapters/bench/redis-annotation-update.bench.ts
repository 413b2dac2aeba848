/**
 * Benchmark (not a test): the cost of one annotation update on the Redis adapter — `updateRecord` of a small
 * evaluation changing one document's annotation — while the rest of the store grows from 10 to 10,000 documents
 * (each with a ~50 KB file) in other evaluations. The update touches one record hash and one sorted-set entry, so
 * its cost must stay flat however large the store gets.
 *
 * Run: `pnpm bench redis` (uses REDIS_URL when set, else starts a throwaway redis-server on a free port).
 * Prints a table and writes a report to .tmp/benchmarks/redis.md (untracked); docs/benchmarks.md keeps the figures.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { updateRecord, type EvaluationRecord } from '@docevals/core';
import { redisStorage } from '../src/redis/index.js';
import { evaluationFixture } from '../test/support/redis-fixtures.js';
import { deleteKeys } from '../test/support/redis-test-keys.js';
import { startRedisServer, type RedisServerHandle } from '../../../test-support/redis-global-setup.js';

const SIZES = [10, 100, 1_000, 10_000];
const DOCUMENTS_PER_EVALUATION = 100;
const FILE_BYTES = 50 * 1024;
const TARGET_DOCUMENTS = 10;
const WARMUP = 500;
/** Timed in rounds, each statistic reported as its median over the rounds: one burst of load elsewhere on the
 * machine then spoils one round, not the figure. */
const ROUNDS = 5;
const UPDATES_PER_ROUND = 400;
const UPDATES = ROUNDS * UPDATES_PER_ROUND;
const ORG = 'org_bench';

let server: RedisServerHandle | undefined;
const url = process.env.REDIS_URL ?? (server = await startRedisServer()).url;
const keyPrefix = `docevals-bench:${randomBytes(4).toString('hex')}:`;
const storage = redisStorage({ url, keyPrefix });
const admin = new Redis(url);

interface Row {
  documents: number;
  evaluations: number;
  usedMemoryMb: number;
  median: number;
  p95: number;
  p99: number;
  mean: number;
}

try {
  await storage.evaluations.insert(evaluationFixture(ORG, 'eval_target', { documents: TARGET_DOCUMENTS }));
  const rows: Row[] = [];
  let stored = 0;
  let evaluations = 0;
  for (const size of SIZES) {
    while (stored < size) {
      const count = Math.min(DOCUMENTS_PER_EVALUATION, size - stored);
      await addEvaluation(`eval_other_${evaluations++}`, count);
      stored += count;
    }
    const timings = await measureUpdates();
    const info = (await admin.info('memory')) as string;
    const usedMemory = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
    rows.push({ documents: size, evaluations, usedMemoryMb: usedMemory / 2 ** 20, ...timings });
    console.log(`${size} documents: median ${timings.median.toFixed(3)} ms, p95 ${timings.p95.toFixed(3)} ms`);
  }
  const serverInfo = (await admin.info('server')) as string;
  const redisVersion = /redis_version:(\S+)/.exec(serverInfo)?.[1] ?? 'unknown';
  const table = renderTable(rows);
  console.log(`\n${table}`);
  writeReport(table, redisVersion);
} finally {
  await deleteKeys(admin, keyPrefix);
  await storage.close();
  await admin.quit();
  await server?.stop();
}

/** Another evaluation with `count` documents, each retaining its own ~50 KB file (as the service stores them). */
async function addEvaluation(id: string, count: number): Promise<void> {
  const record = evaluationFixture(ORG, id, { documents: count });
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      record.documents.slice(i, i + 50).map((document) =>
        storage.files.retain(ORG, document.id, { bytes: randomBytes(FILE_BYTES), mime_type: 'application/pdf' }),
      ),
    );
  }
  await storage.evaluations.insert(record);
}

type Stats = { median: number; p95: number; p99: number; mean: number };

/**
 * Times ROUNDS × UPDATES_PER_ROUND sequential annotation updates of the target evaluation, after WARMUP untimed
 * ones; each statistic is the median of its per-round values.
 */
async function measureUpdates(): Promise<Stats> {
  let n = 0;
  const update = async () => {
    const i = n++;
    const started = performance.now();
    await updateRecord(storage.evaluations, ORG, 'eval_target', (current) => ({
      write: changeAnnotation(current, i % TARGET_DOCUMENTS, i),
      result: undefined,
    }));
    return performance.now() - started;
  };
  for (let i = 0; i < WARMUP; i++) await update();
  const rounds: Stats[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const timings: number[] = [];
    for (let i = 0; i < UPDATES_PER_ROUND; i++) timings.push(await update());
    timings.sort((a, b) => a - b);
    const pick = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))];
    rounds.push({ median: pick(0.5), p95: pick(0.95), p99: pick(0.99), mean: timings.reduce((a, b) => a + b, 0) / timings.length });
  }
  const medianOf = (key: keyof Stats) => rounds.map((round) => round[key]).sort((a, b) => a - b)[Math.floor(ROUNDS / 2)];
  return { median: medianOf('median'), p95: medianOf('p95'), p99: medianOf('p99'), mean: medianOf('mean') };
}

function changeAnnotation(record: EvaluationRecord, index: number, n: number): EvaluationRecord {
  const documents = record.documents.map((document, i) =>
    i === index ? { ...document, annotation: { ...document.annotation, total: n }, revision: `rev_${index}_${n}` } : document,
  );
  return { ...record, documents, updated_at: new Date().toISOString() };
}

function renderTable(rows: Row[]): string {
  const lines = [
    '| documents in other evaluations | evaluations | Redis used_memory | median | p95 | p99 | mean |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.documents.toLocaleString('en-US')} | ${r.evaluations} | ${r.usedMemoryMb.toFixed(1)} MB | ` +
        `${r.median.toFixed(3)} ms | ${r.p95.toFixed(3)} ms | ${r.p99.toFixed(3)} ms | ${r.mean.toFixed(3)} ms |`,
    ),
  ];
  return lines.join('\n');
}

function writeReport(table: string, redisVersion: string): void {
  const path = fileURLToPath(new URL('../../../.tmp/benchmarks/redis.md', import.meta.url));
  mkdirSync(dirname(path), { recursive: true });
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  writeFileSync(
    path,
    `# Redis adapter: cost of one annotation update as the store grows

Generated by \`pnpm bench redis\` (\`packages/adapters/bench/redis-annotation-update.bench.ts\`) on
${new Date().toISOString().slice(0, 10)}: Node ${process.version}, Redis ${redisVersion} on loopback, ${cpus().length} × ${cpu}.

One update is \`updateRecord\` of a small evaluation (${TARGET_DOCUMENTS} documents) that changes one document's annotation: a
read (one HMGET) and a compare-and-set replace (one Lua script: check the version, rewrite the record hash, move its
sorted-set score). At each store size, ${UPDATES.toLocaleString('en-US')} sequential updates are timed after ${WARMUP} untimed ones, in ${ROUNDS} rounds of
${UPDATES_PER_ROUND}; each column is the median of its ${ROUNDS} per-round values (load average during the run: ${loadavg()[0].toFixed(1)}). The other
evaluations hold ${DOCUMENTS_PER_EVALUATION} documents each, and every document has its own ${FILE_BYTES / 1024} KB file in the file store.

${table}

Read the median column: the tail columns (p95, p99) move with whatever else the machine runs at the time, which is
why the load average is recorded; they show no trend with the store's size either.

The cost does not depend on the size of the store: an update reads and writes only the keys of its own record
(\`{prefix}{<org>}:eval:<id>\` and one member of \`{prefix}{<org>}:evals\`), never the files, which live in their own
keys, nor the other evaluations. What does grow it is the size of the evaluation record being updated (its JSON is
read and rewritten whole), which a document count limit per evaluation bounds.
`,
  );
  console.log(`written to ${path}`);
}
