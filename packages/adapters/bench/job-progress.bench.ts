/**
 * Issue 14's benchmark: what saving progress per document costs a job. 1,000 documents, an extractor answering after
 * 20 ms, 8 calls in flight: the bound is 1,000 × 20 / 8 = 2,500 ms. Each document's prediction is saved as it
 * completes (prediction put, metric refresh, event put, lease heartbeat), through the whole service
 * (`iterations.create` with `background: true`, then its events to the final one), on lowdb, Redis and PostgreSQL.
 * The ratio to the bound is the figure (target ≤ 1.1×); the same extractions without any store
 * (`extractAll` alone) show what the machine allows. Rounds are interleaved; medians of three.
 *
 * Run: `pnpm bench job-progress` (Redis: REDIS_URL when set, else a throwaway redis-server on a free port;
 * PostgreSQL: DATABASE_URL when set, else a throwaway server as the tests start it).
 * Not a test: nothing fails on slow figures.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDocevals,
  createExtractionRunner,
  DEFAULT_INFERENCE_SETTINGS,
  type Extractor,
  type Storage,
} from '@docevals/core';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { redisStorage } from '@docevals/adapters/redis';
import { postgresStorage } from '@docevals/adapters/postgres';
import { startRedisServer, type RedisServerHandle } from '../../../test-support/redis-global-setup.js';
import { startPostgresServer, type PostgresServerHandle } from '../../../test-support/postgres-global-setup.js';

const DOCUMENTS = 1_000;
const LATENCY_MS = 20;
const CONCURRENCY = 8;
const ROUNDS = 3;
const BOUND_MS = (DOCUMENTS * LATENCY_MS) / CONCURRENCY;
const ORG = 'org_bench';

const latency: Extractor = {
  name: 'latency',
  models: ['latency'],
  extract: ({ document }) =>
    new Promise((resolve) => setTimeout(() => resolve({ data: { n: Number(/\d+/.exec(document.filename)![0]) } }), LATENCY_MS)),
};
const schema = { type: 'object', properties: { n: { type: 'number' } } };
const documents = Array.from({ length: DOCUMENTS }, (_, i) => ({
  mime_data: { filename: `doc-${i}.txt`, url: `data:text/plain;base64,${Buffer.from(`document ${i}`).toString('base64')}` },
  annotation: { n: i },
}));

async function storeRun(open: () => Promise<Storage> | Storage): Promise<number> {
  const storage = await open();
  const docevals = createDocevals({ storage, extractors: [latency], extraction: { concurrency: CONCURRENCY } });
  try {
    const evaluation = await docevals.evals.create(ORG, { name: 'bench', json_schema: schema, documents, default_inference_settings: { model: 'latency' } });
    // lowdb writes the files of the evaluation's creation (one batch: 1,000 documents, their file contents and
    // references) in the background once it is committed; that flush is the creation's cost, not the job's, so the
    // clock starts after it (BENCH_NO_SETTLE=1 starts it at once, as the bench did before).
    if (!process.env.BENCH_NO_SETTLE && 'settle' in storage) await (storage as Storage & { settle(): Promise<void> }).settle();
    const started = performance.now();
    const accepted = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    let last = '';
    for await (const event of docevals.evals.iterations.events(ORG, { evaluation_id: evaluation.id, iteration_id: accepted.id })) last = event.type;
    const elapsed = performance.now() - started;
    if (last !== 'completed') throw new Error(`the iteration ended ${last}`);
    await docevals.evals.delete(ORG, { evaluation_id: evaluation.id });
    return elapsed;
  } finally {
    await docevals.close();
  }
}

async function bareRun(): Promise<number> {
  const runner = createExtractionRunner({ extractors: [latency], concurrency: CONCURRENCY });
  const docs = documents.map((d, i) => ({ id: `file_${i}`, filename: d.mime_data.filename, mime_type: 'text/plain', bytes: new Uint8Array() }));
  const started = performance.now();
  await runner.extractAll(docs, schema, { ...DEFAULT_INFERENCE_SETTINGS, model: 'latency' });
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'docevals-job-bench-'));
  let redis: RedisServerHandle | undefined;
  const url = process.env.REDIS_URL ?? (redis = await startRedisServer()).url;
  let postgres: PostgresServerHandle | undefined;
  const databaseUrl = process.env.DATABASE_URL ?? (postgres = await startPostgresServer()).url;
  const contenders: Array<[string, () => Promise<number>]> = [
    ['extractAll, no store', bareRun],
    ['lowdb', () => storeRun(() => lowdbStorage({ dir }))],
    ['redis', () => storeRun(() => redisStorage({ url, keyPrefix: `bench-jobs-${Date.now().toString(36)}:` }))],
    ['postgres', () => storeRun(() => postgresStorage({ connectionString: databaseUrl, schema: `bench_jobs_${Date.now().toString(36)}` }))],
  ];
  const times = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of contenders) times.get(name)!.push(await run());
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis?.stop();
    await postgres?.stop();
  }
  console.log(`${DOCUMENTS} documents, ${LATENCY_MS} ms per call, ${CONCURRENCY} in flight: bound ${BOUND_MS} ms`);
  console.log(`machine: ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const [name, xs] of times) {
    const m = median(xs);
    console.log(`${name.padEnd(22)} median ${m.toFixed(0).padStart(6)} ms  ratio to bound ${(m / BOUND_MS).toFixed(3)}×  (${xs.map((x) => x.toFixed(0)).join(', ')})`);
  }
}

await main();
