// Benchmark (not a test): importing a JSONL of annotations over HTTP. `pnpm bench annotation-import`.
// For each store (BENCH_STORES, default lowdb,redis,postgres; a store whose adapter cannot open is reported as
// skipped): an evaluation of N documents (BENCH_DOCUMENTS, default 1,000) with 5 imported iterations
// (BENCH_ITERATIONS), then `POST /v1/evals/{id}/documents/import` with an application/x-ndjson body of one row per
// document (`{"document_id", "annotation"}`), BENCH_ROUNDS times (default 3) with different annotations. Each answer
// must say that every row was updated. A last import sets every annotation to iteration 0's prediction: then that
// iteration's mean similarity must be 1 (within 1e-9: running sums) and every other's below 1 (the metrics of every iteration were refreshed).
// Prints each import's time (the last one included in the median) and the load average when it was taken.
import { cpus, loadavg } from 'node:os';
import { buildEvaluation, expectOk, median, ms, openStore, rowsPerStore, serve, timed } from './http-bench.js';

const N = Number(process.env.BENCH_DOCUMENTS ?? 1_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const STORES = (process.env.BENCH_STORES ?? 'lowdb,redis,postgres').split(',').map((s) => s.trim()).filter(Boolean);
const load = () => `load ${loadavg()[0]!.toFixed(1)}`;

/** One JSONL row per document; round `k` changes every annotation's vendor and total. */
function annotationsFile(ids: string[], round: number): string {
  return ids
    .map((id, i) => JSON.stringify({ document_id: id, annotation: { vendor: `Imported ${round} ${i}`, total: i + round, lines: [`line ${i}`] } }))
    .join('\n');
}

async function benchStore(name: string): Promise<string[]> {
  const opened = await openStore(name);
  const api = await serve(opened.storage, N);
  const lines: string[] = [];
  try {
    const build = await timed(() => buildEvaluation(api, N, ITERATIONS, 'import'));
    const evaluation = build.value.json;
    const ids: string[] = evaluation.documents.map((d: { id: string }) => d.id);
    console.log(`[${name}] built ${N} documents × ${ITERATIONS} iterations in ${ms(build.ms)} ms (${load()})`);
    const times: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const body = annotationsFile(ids, round);
      const loadBefore = load();
      const t = await timed(() => api.call('POST', `/v1/evals/${evaluation.id}/documents/import`, body, 'application/x-ndjson'));
      expectOk(t.value, 'import');
      const { updated, refused } = t.value.json as { updated: number; refused: number };
      if (updated !== N || refused !== 0) throw new Error(`import round ${round}: ${updated} updated, ${refused} refused; ${N} updated expected`);
      times.push(t.ms);
      console.log(`[${name}] import ${N} annotations, round ${round}: ${ms(t.ms)} ms, ${updated} updated (${loadBefore} before, ${load()} after)`);
    }
    // Every iteration's metrics follow an import: once the annotations equal iteration 0's predictions, its mean
    // similarity is exactly 1 and every other iteration's is below 1.
    const exact = ids.map((id, i) => JSON.stringify({ document_id: id, annotation: { vendor: `Vendor ${i}`, total: i, lines: [`line ${i + 1}`, `line ${i}`] } })).join('\n');
    const check = await timed(() => api.call('POST', `/v1/evals/${evaluation.id}/documents/import`, exact, 'application/x-ndjson'));
    expectOk(check.value, 'import');
    if (check.value.json.updated !== N) throw new Error(`check import: ${check.value.json.updated} updated; ${N} expected`);
    console.log(`[${name}] import ${N} annotations equal to iteration 0's predictions: ${ms(check.ms)} ms (${load()})`);
    const means: number[] = [];
    for (const iteration of evaluation.iterations as { id: string }[]) {
      const summary = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iteration.id}?view=summary`);
      expectOk(summary, 'GET summary');
      means.push(summary.json.metric_results.mean_similarity);
    }
    if (Math.abs(means[0]! - 1) > 1e-9 || means.slice(1).some((m) => m > 1 - 1e-9)) throw new Error(`iteration means after the import: ${means.join(', ')}; 1 then below 1 expected`);
    console.log(`[${name}] iteration means after it: ${means.map((m) => m.toFixed(4)).join(', ')} (refreshed)`);
    times.push(check.ms);
    lines.push(`| ${name} | ${N} × ${ITERATIONS} | ${times.map(ms).join(', ')} ms | ${ms(median(times))} ms | ${load()} |`);
  } finally {
    await api.close();
    await opened.storage.close();
    await opened.cleanup();
  }
  return lines;
}

console.log(`annotation import bench: ${N} documents × ${ITERATIONS} iterations, ${ROUNDS} imports; ${cpus().length} cores (${cpus()[0]?.model ?? '?'}); node ${process.version}; ${new Date().toISOString()}`);
const table = ['| store | documents × iterations | imports of all annotations | median | load after |', '|---|---|---|---|---|'];
table.push(...(await rowsPerStore(STORES, benchStore, (name, reason) => `| ${name} | skipped: ${reason} | | | |`)));
console.log(`\n${table.join('\n')}`);
