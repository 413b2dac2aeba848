import type { PairedDelta } from '../schemas/analysis.js';

export type { PairedDelta };

/** Resamples of {@link pairedBootstrap} (the issue asks for at least 2,000). */
export const BOOTSTRAP_RESAMPLES = 2000;
/** The fixed seed: the same differences always give the same interval. */
export const BOOTSTRAP_SEED = 0x5eed2025;

/** mulberry32: a small, fast, seeded PRNG with a 2^32 period (plenty for 2,000 × n draws). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Binomial(trials, p) by inversion from 0: expected steps ≈ trials × p + 1 (here about 2: p ≈ 1 / trials). */
function binomial(trials: number, p: number, random: () => number): number {
  if (p >= 1) return trials;
  const u = random();
  const ratio = p / (1 - p);
  let probability = Math.pow(1 - p, trials);
  let cdf = probability;
  let k = 0;
  while (u > cdf && k < trials) {
    probability *= ((trials - k) / (k + 1)) * ratio;
    k += 1;
    cdf += probability;
  }
  return k;
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
  const nonZero: number[] = [];
  for (let i = 0; i < n; i++) if (differences[i] !== 0) nonZero.push(differences[i]!);
  if (nonZero.length * 8 < n) {
    // Most documents did not move (the usual field): draw only how often each moved document is picked. The counts
    // of a resample are multinomial (n draws, 1/n each); the moved documents' counts are drawn one after the other,
    // each binomial given the draws left, so a resample costs O(moved) instead of O(n). Same distribution.
    for (let b = 0; b < resamples; b++) {
      let left = n;
      let s = 0;
      for (let j = 0; j < nonZero.length && left > 0; j++) {
        const count = binomial(left, 1 / (n - j), random);
        left -= count;
        s += count * nonZero[j]!;
      }
      means[b] = s / n;
    }
  } else {
    const values = Float64Array.from(differences as ArrayLike<number>);
    for (let b = 0; b < resamples; b++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += values[(random() * n) | 0]!;
      means[b] = s / n;
    }
  }
  means.sort();
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!;
  // Sums of equal values may differ in their last bit: snap values within 1e-12 of the delta of a constant input.
  const tidy = (x: number) => (Math.abs(x - delta) < 1e-12 ? delta : x);
  const ci_low = tidy(at(0.025));
  const ci_high = tidy(at(0.975));
  return { n, delta, ci_low, ci_high, significant: ci_low > 0 || ci_high < 0 };
}
