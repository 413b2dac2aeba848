/**
 * compareDocuments throughput on fixtures/vectors/perf-invoices.json (40 invoices x 60 line items, perturbed and
 * reordered predictions). Targets: >= 550 documents/s aligned + unaligned on one core, 50x a
 * straightforward Python implementation (~11 documents/s); issue 31: >= 55x its ~15.3/s reference, ~840 documents
 * per CPU second. Not a test; figures are kept in docs/benchmarks.md.
 * Run: pnpm bench compare-documents
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { compareDocuments, type JsonObject } from '../src/index.js';
import { TextContext } from '../src/metrics/normalize-text.js';
import { scoreDocument } from '../src/metrics/section-walk.js';
import { prepareDocument } from '../src/metrics/compare-documents.js';

const file = fileURLToPath(new URL('../../../fixtures/vectors/perf-invoices.json', import.meta.url));
const { pairs } = JSON.parse(readFileSync(file, 'utf8')) as {
  pairs: Array<{ annotation: JsonObject; prediction: JsonObject }>;
};

/** Section 3 only, through the same validation and preparation compareDocuments does. */
function unalignedOnly(annotation: JsonObject, prediction: JsonObject) {
  const texts = new TextContext();
  return scoreDocument(prepareDocument(annotation, texts, 'annotation'), prepareDocument(prediction, texts, 'prediction'));
}

const WARM_UP_MS = Number(process.env.BENCH_WARM_UP_MS ?? 2000);

function measure(name: string, run: (a: JsonObject, p: JsonObject) => unknown, minMs: number): void {
  // Warm-up long enough for V8 to finish tiering up the hot functions: a 3 s run with one pass of warm-up measured
  // 510-650 documents/s where a longer one settles at 680-715.
  const warmUntil = performance.now() + WARM_UP_MS;
  while (performance.now() < warmUntil) for (const { annotation, prediction } of pairs) run(annotation, prediction);
  let docs = 0;
  let sink = 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  let elapsed = 0;
  do {
    for (const { annotation, prediction } of pairs) {
      const r = run(annotation, prediction) as { similarity: number };
      sink += r.similarity;
      docs++;
    }
    elapsed = performance.now() - start;
  } while (elapsed < minMs);
  const cpu = process.cpuUsage(cpuStart);
  // CPU time of this process: other work on a shared machine slows the wall clock, not this figure.
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `${name.padEnd(40)} ${((docs / cpuMs) * 1000).toFixed(0).padStart(6)} documents/s per CPU second ` +
      `(${(cpuMs / docs).toFixed(3)} ms/document; wall clock ${((docs / elapsed) * 1000).toFixed(0)}/s; ` +
      `${docs} documents, checksum ${(sink / docs).toFixed(6)})`,
  );
}

console.log(`node ${process.version}, ${cpus().length} cores: ${cpus()[0]?.model ?? 'unknown cpu'}`);
console.log(`input: ${pairs.length} invoice pairs from ${file}`);
const ms = Number(process.env.BENCH_MS ?? 8000);
measure('unaligned only (section 3)', unalignedOnly, ms);
measure('compareDocuments (aligned + unaligned)', compareDocuments, ms);
