/**
 * Benchmark (not a test): what one small write costs on the lowdb and Redis adapters as a parent grows (issue 12).
 * For each adapter and each size N (10 → 10,000 documents in one evaluation, as many predictions in one
 * iteration): `predictions.put` of one prediction and `documents.put` of one document (compare-and-set on the
 * version, as the service writes them). Then the batches: `documents.insertMany` of 10,000 documents and
 * `files.retainMany` of 10,000 small files, and `insertMany` of 1,000 documents in an empty store vs. a store
 * already holding 20 such evaluations (the ratio should stay near 1).
 *
 * Run: `pnpm bench child-writes` (Redis: REDIS_URL when set, else a throwaway redis-server on a free port).
 * Prints tables; docs/benchmarks.md keeps the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DocumentRecord, PredictionRecord, Storage } from '@docevals/core';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { redisStorage } from '@docevals/adapters/redis';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServerHandle } from '../../../test-support/redis-global-setup.js';
import { deleteKeys } from '../test/support/redis-test-keys.js';

const SIZES = [10, 100, 1_000, 10_000];
const WRITES = 200;
const ORG = 'org_bench';
const now = new Date().toISOString();

function documentOf(parent: string, i: number): DocumentRecord {
  return {
    id: `file_${String(i).padStart(6, '0')}`,
    organization_id: ORG,
    parent_id: parent,
    updated_at: now,
    filename: `invoice-${i}.pdf`,
    mime_type: 'application/pdf',
    size: 50_000,
    annotation: { invoice_number: `INV-${i}`, total: i * 1.5, vendor: { name: 'ACME', country: 'FR' }, lines: [{ sku: 'A', qty: 2 }, { sku: 'B', qty: 1 }] },
    annotation_metadata: null,
    revision: `rev_${i}`,
  };
}

function predictionOf(parent: string, i: number, similarity = 0.8): PredictionRecord {
  const tree = { invoice_number: 1, total: similarity, vendor: { name: 1, country: 1 }, lines: [{ sku: 1, qty: 1 }] } as unknown as PredictionRecord['metrics']['similarities'];
  return {
    id: `file_${String(i).padStart(6, '0')}`,
    organization_id: ORG,
    parent_id: parent,
    evaluation_id: 'eval_bench',
    updated_at: now,
    status: 'succeeded',
    prediction: { invoice_number: `INV-${i}`, total: i * 1.4, vendor: { name: 'ACME', country: 'FR' }, lines: [{ sku: 'A', qty: 2 }] },
    metadata: { api_cost: { value: 0.001, currency: 'USD' } },
    metrics: {
      annotation_revision: `rev_${i}`,
      similarity,
      flat_similarities: { invoice_number: 1, total: similarity, 'vendor.name': 1, 'vendor.country': 1 },
      similarities: tree,
      aligned_similarity: similarity,
      aligned_flat_similarities: { invoice_number: 1, total: similarity, 'vendor.name': 1, 'vendor.country': 1 },
      aligned_similarities: tree,
    },
    totals: { succeeded: 1, failed: 0, similarity, aligned_similarity: similarity, cost: 0.001, input_tokens: 800, output_tokens: 120 },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
const ms = (n: number) => n.toFixed(n < 10 ? 2 : 0);

async function time(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

async function grow(storage: Storage, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += 1_000) {
    const end = Math.min(to, start + 1_000);
    const range = Array.from({ length: end - start }, (_, k) => start + k);
    await storage.documents.insertMany(range.map((i) => documentOf('eval_bench', i)));
    await storage.predictions.insertMany(range.map((i) => predictionOf('iter_bench', i)));
  }
}

async function putTimes(storage: Storage, size: number): Promise<{ prediction: number[]; document: number[] }> {
  const prediction: number[] = [];
  const document: number[] = [];
  for (let w = 0; w < WRITES; w++) {
    const i = (w * 7919) % size;
    const current = await storage.predictions.get(ORG, 'iter_bench', predictionOf('', i).id);
    prediction.push(await time(() => storage.predictions.put(predictionOf('iter_bench', i, (w % 10) / 10), current!.version)));
    const doc = await storage.documents.get(ORG, 'eval_bench', documentOf('', i).id);
    document.push(await time(() => storage.documents.put({ ...doc!.value, annotation: { total: w } }, doc!.version)));
  }
  return { prediction, document };
}

async function run(name: string, open: () => Storage, reset: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [`\n${name}`, '| documents in the evaluation (and predictions in the iteration) | put one prediction, median / p95 (ms) | put one document, median / p95 (ms) |', '|---|---|---|'];
  let storage = open();
  let stored = 0;
  for (const size of SIZES) {
    await grow(storage, stored, size);
    stored = size;
    const t = await putTimes(storage, size);
    lines.push(`| ${size.toLocaleString('en')} | ${ms(median(t.prediction))} / ${ms(p95(t.prediction))} | ${ms(median(t.document))} / ${ms(p95(t.document))} |`);
    console.log(lines.at(-1));
  }
  await storage.close();
  // Open with 20,000 children stored (lowdb reads every record file at open).
  const reopen = await time(async () => {
    storage = open();
    await storage.predictions.totals(ORG, 'iter_bench');
  });
  lines.push(`| open again with ${stored.toLocaleString('en')} documents + ${stored.toLocaleString('en')} predictions stored | ${ms(reopen)} ms |  |`);
  console.log(lines.at(-1));
  await storage.close();
  await reset();

  storage = open();
  const insert10k = await time(() => storage.documents.insertMany(Array.from({ length: 10_000 }, (_, i) => documentOf('eval_big', i))));
  const files = Array.from({ length: 10_000 }, (_, i) => ({ fileId: `file_${i}`, content: { bytes: randomBytes(1024), mime_type: 'application/pdf' } }));
  const retain10k = await time(() => storage.files.retainMany(ORG, files));
  const release10k = await time(() => storage.files.releaseMany(ORG, files.map((f) => f.fileId)));
  const deleteAll10k = await time(() => storage.documents.deleteAll(ORG, 'eval_big'));
  await storage.close();
  await reset();

  storage = open();
  const thousand = (parent: string) => Array.from({ length: 1_000 }, (_, i) => documentOf(parent, i));
  await storage.documents.insertMany(thousand('eval_warmup'));
  const empty = median([await time(() => storage.documents.insertMany(thousand('eval_e0'))), await time(() => storage.documents.insertMany(thousand('eval_e1'))), await time(() => storage.documents.insertMany(thousand('eval_e2')))]);
  for (let e = 0; e < 19; e++) await storage.documents.insertMany(thousand(`eval_other_${e}`));
  const full = median([await time(() => storage.documents.insertMany(thousand('eval_f0'))), await time(() => storage.documents.insertMany(thousand('eval_f1'))), await time(() => storage.documents.insertMany(thousand('eval_f2')))]);
  await storage.close();
  await reset();

  lines.push(
    '',
    '| batch | ms |',
    '|---|---|',
    `| documents.insertMany of 10,000 | ${ms(insert10k)} |`,
    `| files.retainMany of 10,000 new 1 KB files | ${ms(retain10k)} |`,
    `| files.releaseMany of them | ${ms(release10k)} |`,
    `| documents.deleteAll of 10,000 | ${ms(deleteAll10k)} |`,
    `| insertMany of 1,000: empty store / after 20 × 1,000 stored | ${ms(empty)} / ${ms(full)} (× ${(full / empty).toFixed(2)}) |`,
  );
  console.log(lines.slice(-8).join('\n'));
  return lines;
}

const report: string[] = [`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()[0]!.toFixed(1)}; ${new Date().toISOString()}; ${WRITES} writes per size`];

// lowdb
const root = mkdtempSync(join(tmpdir(), 'docevals-bench-lowdb-'));
let folder = 0;
let dir = join(root, `s${folder}`);
try {
  report.push(...(await run('lowdb', () => lowdbStorage({ dir, sweepOrphans: false }), async () => void (dir = join(root, `s${++folder}`)))));
} finally {
  rmSync(root, { recursive: true, force: true });
}

// Redis
let server: RedisServerHandle | undefined;
const url = process.env.REDIS_URL ?? (server = await startRedisServer()).url;
const admin = new Redis(url);
let keyPrefix = `docevals-bench:${randomBytes(4).toString('hex')}:`;
try {
  const version = /redis_version:(\S+)/.exec((await admin.info('server')) as string)?.[1] ?? 'unknown';
  report.push(...(await run(`redis ${version}`, () => redisStorage({ url, keyPrefix }), async () => {
    await deleteKeys(admin, keyPrefix);
    keyPrefix = `docevals-bench:${randomBytes(4).toString('hex')}:`;
  })));
} finally {
  await deleteKeys(admin, keyPrefix);
  await admin.quit();
  await server?.stop();
}
console.log(`\n${report.join('\n')}`);
