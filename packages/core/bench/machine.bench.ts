// Benchmark (not a test): what this machine gives today, so that figures taken on different days can be compared.
// `pnpm bench machine`. No docevals code: a fresh-memory fill (page faults), a refill of memory already mapped
// (bandwidth), many small objects (the young generation), JSON of ~30 MB (a build's answer), an integer loop (the
// core itself). The same commit's build took 2.8-3.0 s one day and 10.5 s another on "the same" virtual machine:
// when this bench's figures move, every wall-time figure of docs/benchmarks.md moves with them (see "The machine").
import { cpus, loadavg } from 'node:os';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MB = 1024 * 1024;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function time(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** Fills `size` bytes of memory the process never touched: one page fault per 4 KB page. */
function freshFill(size: number): { ms: number; faults: number } {
  const before = process.resourceUsage().minorPageFault;
  const buffer = Buffer.allocUnsafeSlow(size); // its own mapping, not yet backed by pages
  const ms = time(() => buffer.fill(1));
  return { ms, faults: process.resourceUsage().minorPageFault - before };
}

/** Small objects, most of them short-lived: what a request's parsing and answer allocate. */
function smallObjects(count: number): number {
  return time(() => {
    let kept: object[] = [];
    for (let i = 0; i < count; i++) {
      kept.push({ i, s: `x${i}`, o: { k: [i, i + 1] } });
      if (kept.length > 100_000) kept = [];
    }
  });
}

/** `JSON.stringify` then `JSON.parse` of ~30 MB of records shaped like predictions. */
function jsonRoundTrip(records: number): { stringify: number; parse: number; mb: number } {
  const data = Array.from({ length: records }, (_, i) => ({
    id: `pred_${i}`,
    document_id: `doc_${i}`,
    output: { vendor: `Vendor ${i}`, total: i * 1.5, lines: [{ sku: `A${i}`, qty: i % 7 }] },
    metrics: { similarity: (i % 100) / 100, flat: { vendor: 1, total: 0.5, 'lines.0.sku': 1 } },
  }));
  let text = '';
  const stringify = time(() => (text = JSON.stringify(data)));
  const parse = time(() => JSON.parse(text));
  return { stringify, parse, mb: text.length / MB };
}

function integerLoop(n: number): number {
  let x = 0;
  const ms = time(() => {
    for (let i = 0; i < n; i++) x = (x + (i ^ (x >>> 3))) | 0;
  });
  if (x === 42) console.log(''); // keeps the loop from being optimized away
  return (ms * 1e6) / n;
}

const fills: number[] = [];
const pageUs: number[] = [];
const refills: number[] = [];
const objects: number[] = [];
const json: Array<ReturnType<typeof jsonRoundTrip>> = [];
const loops: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const fresh = freshFill(256 * MB);
  fills.push((fresh.ms * 1024) / 256);
  pageUs.push((fresh.ms * 1000) / Math.max(1, fresh.faults));
  const mapped = Buffer.allocUnsafeSlow(256 * MB);
  mapped.fill(0); // every page faulted in once: the refill below is memory bandwidth alone
  refills.push((256 / time(() => mapped.fill(2))) * (1000 / 1024));
  objects.push(smallObjects(3_000_000));
  json.push(jsonRoundTrip(150_000));
  loops.push(integerLoop(300_000_000));
}
const load = loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`machine bench: ${cpus().length} cores (${cpus()[0]?.model.trim()}); node ${process.version}; ${new Date().toISOString()}`);
console.log(`| measure (median of ${ROUNDS}) | figure |`);
console.log('|---|---|');
console.log(`| fill 1 GB of fresh memory (page faults) | ${median(fills).toFixed(0)} ms (${median(pageUs).toFixed(1)} µs per fault) |`);
console.log(`| refill memory already mapped | ${median(refills).toFixed(1)} GB/s |`);
console.log(`| 3,000,000 small objects | ${median(objects).toFixed(0)} ms |`);
const j = json.map((r) => r.stringify);
const p = json.map((r) => r.parse);
console.log(`| JSON of ${json[0]!.mb.toFixed(0)} MB: stringify / parse | ${median(j).toFixed(0)} / ${median(p).toFixed(0)} ms |`);
console.log(`| integer loop | ${median(loops).toFixed(2)} ns per iteration |`);
console.log(`load ${load}`);
