import type { PairedDelta } from '../schemas/analysis.js';

export type { PairedDelta };

/** Resamples of {@link pairedBootstrap} (the issue asks for at least 2,000). */
export const BOOTSTRAP_RESAMPLES = 2000;
/** The fixed seed: the same differences always give the same interval. */
export const BOOTSTRAP_SEED = 0x5eed2025;

/** mulberry32: a small, fast, seeded PRNG with a 2^32 period (plenty for 2,000 × n draws). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The paired delta of per-document differences (head − base) with a 95% percentile bootstrap interval: documents
 * are resampled with replacement `resamples` times (seeded: the same input gives the same interval), the interval is
 * the 2.5th and 97.5th percentiles of the resampled means, and `significant` is true when it excludes 0. Null
 * without documents. Cost: resamples × n additions.
 *
 * @example
 * pairedBootstrap([0.1, 0.2, 0.15, 0.12]).significant; // true
 * pairedBootstrap([0, 0, 0, -0.01]).significant; // false
 */
export function pairedBootstrap(
  differences: ArrayLike<number>,
  options: { resamples?: number; seed?: number } = {},
): PairedDelta | null {
  const n = differences.length;
  if (n === 0) return null;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += differences[i]!;
  const delta = sum / n;
  const resamples = Math.max(1, Math.floor(options.resamples ?? BOOTSTRAP_RESAMPLES));
  const random = mulberry32(options.seed ?? BOOTSTRAP_SEED);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += differences[Math.floor(random() * n)]!;
    means[b] = s / n;
  }
  means.sort();
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!;
  // Sums of equal values may differ in their last bit: snap values within 1e-12 of the delta of a constant input.
  const tidy = (x: number) => (Math.abs(x - delta) < 1e-12 ? delta : x);
  const ci_low = tidy(at(0.025));
  const ci_high = tidy(at(0.975));
  return { n, delta, ci_low, ci_high, significant: ci_low > 0 || ci_high < 0 };
}
