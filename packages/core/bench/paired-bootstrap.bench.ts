/**
 * pairedBootstrap cost (docs/spec/analysis.md, Comparison): 2,000 resamples of n per-document differences, for the
 * compare of an evaluation's largest size (10,000 documents) and a typical one (40). A compare pays this once for the
 * mean, once for the aligned mean and once per field. Not a test; figures are kept in docs/benchmarks.md.
 * Run: pnpm bench paired-bootstrap
 */
import { loadavg } from 'node:os';
import { pairedBootstrap } from '../src/analysis/index.js';

function measure(n: number, rounds: number, moved = 1): void {
  // `moved`: the share of documents whose figure changed (a field usually moves on a few documents only).
  const differences = Float64Array.from({ length: n }, (_, i) => (i % Math.round(1 / moved) === 0 ? Math.sin(i + 1) / 10 : 0));
  pairedBootstrap(differences); // warm-up
  const started = performance.now();
  for (let r = 0; r < rounds; r++) pairedBootstrap(differences);
  const ms = (performance.now() - started) / rounds;
  console.log(`n=${n}, ${moved * 100}% moved: ${ms.toFixed(2)} ms per interval (2,000 resamples), ${((n * 2000) / ms / 1e3).toFixed(0)} M draws/s`);
}

console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
measure(40, 50);
measure(1_000, 10);
measure(10_000, 5);
measure(10_000, 5, 0.1);
measure(10_000, 20, 0.01);
