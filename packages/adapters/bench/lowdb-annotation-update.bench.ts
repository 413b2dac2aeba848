/**
 * What one annotation update costs on the lowdb storage as the rest of the store grows.
 *
 * One small evaluation (5 documents) gets its first document's annotation changed with `updateRecord`, as the
 * service does, while the store holds 10, 100, 1,000 and 10,000 other documents (in evaluations of 10 documents,
 * each with its own ~50 KB file in the file store). Reported per size: the update's latency, the size of
 * docevals.json (which every write rewrites: lowdb's design), and how many document files changed (inode or
 * mtime) during the updates, which must be 0: document bytes live outside the JSON db.
 *
 * The store is seeded by writing its folder in the adapter's own format (through its lowdb adapter), then opened
 * with lowdbStorage: seeding 10,000 files one write at a time would itself take minutes, for the very cost that
 * is measured here. Opening checks the seed: a file the db does not list would be swept away.
 *
 * Run: `pnpm bench lowdb` (from the repository root). Figures: docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type EvaluationRecord, type StoredDocument, updateRecord } from '@docevals/core';
import { lowdbStorage } from '../src/lowdb/index.js';
import { DurableJsonFile, emptyState, type LowdbState, serializeState, withItem } from '../src/lowdb/json-state.js';

const SIZES = [10, 100, 1_000, 10_000];
const DOCUMENTS_PER_EVALUATION = 10;
const FILE_BYTES = 50 * 1024;
const WARMUP = 5;
const UPDATES = 100;
const ORG = 'org_bench';

function document(fileId: string, i: number): StoredDocument {
  return {
    id: fileId,
    filename: `invoice-${i}.pdf`,
    annotation: { invoice_number: `INV-${i}`, total: i * 1.5, currency: 'EUR', lines: [{ label: 'item', amount: i }] },
    annotation_metadata: null,
    revision: `rev_${i}`,
  };
}

function evaluation(id: string, documents: StoredDocument[]): EvaluationRecord {
  return {
    id,
    organization_id: ORG,
    updated_at: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    created_at: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    name: id,
    project_id: 'proj_bench',
    json_schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } },
    schema_id: 'sch_id_0000000000000000',
    schema_data_id: 'sch_data_id_0000000000000000',
    default_inference_settings: { model: 'gpt-4o' },
    documents,
    iteration_ids: [],
  };
}

const fileId = (i: number) => `file_${i.toString(16).padStart(16, '0')}`;

/** Writes `others` documents (and their files) plus the small target evaluation, in the adapter's format. */
async function seed(dir: string, others: number): Promise<LowdbState> {
  let state: LowdbState = emptyState();
  const filesDir = join(dir, 'files', ORG);
  mkdirSync(filesDir, { recursive: true });
  const content = Buffer.alloc(FILE_BYTES);
  for (let e = 0; e * DOCUMENTS_PER_EVALUATION < others; e++) {
    const documents: StoredDocument[] = [];
    for (let d = 0; d < DOCUMENTS_PER_EVALUATION && e * DOCUMENTS_PER_EVALUATION + d < others; d++) {
      const i = e * DOCUMENTS_PER_EVALUATION + d;
      content.writeUInt32BE(i, 0); // distinct bytes per file, as content addressing implies
      writeFileSync(join(filesDir, fileId(i)), content);
      state = { ...state, files: withItem(state.files, ORG, fileId(i), { references: 1, mime_type: 'application/pdf', size: FILE_BYTES }) };
      documents.push(document(fileId(i), i));
    }
    const id = `eval_other_${e}`;
    state = { ...state, evaluations: withItem(state.evaluations, ORG, id, { version: 1, value: evaluation(id, documents) }) };
  }
  const target = evaluation('eval_target', Array.from({ length: 5 }, (_, d) => document(`file_target_${d}`, d)));
  state = { ...state, evaluations: withItem(state.evaluations, ORG, 'eval_target', { version: 1, value: target }) };
  await new DurableJsonFile(join(dir, 'docevals.json'), join(dir, '.docevals.json.tmp')).write(state);
  // Flush the seed's own writes now, so that they do not land in the fsyncs of the measured updates.
  spawnSync('sync');
  return state;
}

/** CPU part of one db write: serializing the whole state, as every write does (median of 21). */
function serializeMs(state: LowdbState): number {
  const times: number[] = [];
  for (let n = 0; n < 21; n++) {
    const start = performance.now();
    serializeState(state);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[10];
}

/** inode + mtime of every document file, to show none is rewritten. */
function fileStamps(dir: string): Map<string, string> {
  const folder = join(dir, 'files', ORG);
  return new Map(readdirSync(folder).map((name) => {
    const s = statSync(join(folder, name));
    return [name, `${s.ino}:${s.mtimeMs}`];
  }));
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (ms: number) => ms.toFixed(2);

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'docevals-lowdb-bench-'));
  const rows: string[] = [];
  try {
    for (const size of SIZES) {
      const dir = join(root, `store-${size}`);
      const seeded = await seed(dir, size);
      const storage = lowdbStorage({ dir });
      const before = fileStamps(dir);
      if (before.size !== size) throw new Error(`seed check: ${before.size} document files after open, expected ${size}`);
      await new Promise((r) => setTimeout(r, 20)); // so that a rewrite within the same millisecond still shows

      const times: number[] = [];
      for (let n = 0; n < WARMUP + UPDATES; n++) {
        const start = performance.now();
        await updateRecord(storage.evaluations, ORG, 'eval_target', (current) => ({
          write: {
            ...current,
            updated_at: new Date(Date.UTC(2026, 0, 2) + n).toISOString(),
            documents: current.documents.map((d, i) => (i === 0 ? { ...d, annotation: { invoice_number: `INV-${n}`, total: n }, revision: `rev_update_${n}` } : d)),
          },
          result: undefined,
        }));
        if (n >= WARMUP) times.push(performance.now() - start);
      }
      const after = fileStamps(dir);
      const rewritten = [...before].filter(([name, stamp]) => after.get(name) !== stamp).length;
      const stored = await storage.evaluations.get(ORG, 'eval_target');
      if (stored?.version !== WARMUP + UPDATES + 1) throw new Error('an update was lost');
      await storage.close();
      const serialize = serializeMs(seeded); // measured warm, after the updates

      times.sort((a, b) => a - b);
      const dbBytes = statSync(join(dir, 'docevals.json')).size;
      const row = `| ${size.toLocaleString('en-US')} | ${fmt(percentile(times, 50))} | ${fmt(percentile(times, 95))} | ${fmt(serialize)} | ${(dbBytes / 1024).toFixed(0)} KiB | ${((size * FILE_BYTES) / 1024 / 1024).toFixed(1)} MiB | ${rewritten} of ${size} |`;
      rows.push(row);
      console.log(row);
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.log('\n| other documents | update p50 (ms) | update p95 (ms) | of which serializing the db (ms) | docevals.json, rewritten per update | document bytes, never rewritten | document files changed by the updates |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  console.log(`\n${UPDATES} updates per size after ${WARMUP} warm-up; Node ${process.version}, ${process.platform}/${process.arch}.`);
}

await main();
