import type { Calibration } from '../schemas/analysis.js';

export type { Calibration };

/** Reliability bins of 0.1: [0, 0.1), [0.1, 0.2), ..., [0.9, 1]. */
export const CALIBRATION_BINS = 10;

/**
 * Collects (likelihood, exact) pairs of scored leaves and gives the reliability table and the expected calibration
 * error (docs/spec/analysis.md, Calibration): per bin of likelihood, how many leaves, their mean likelihood and the
 * share of them that were exact (score 1). ECE = Σ (count / total) × |mean likelihood − exact rate|, in [0, 1].
 * Memory: three numbers per bin.
 *
 * @example
 * const c = new CalibrationBuilder();
 * c.add(0.9, true); c.add(0.9, false);
 * c.result()!.ece; // 0.4
 */
export class CalibrationBuilder {
  private readonly counts = new Array<number>(CALIBRATION_BINS).fill(0);
  private readonly likelihoods = new Array<number>(CALIBRATION_BINS).fill(0);
  private readonly exact = new Array<number>(CALIBRATION_BINS).fill(0);
  private total = 0;

  /** One scored leaf: its likelihood (ignored unless a number in [0, 1]) and whether its score was 1. */
  add(likelihood: unknown, exact: boolean): void {
    if (typeof likelihood !== 'number' || !Number.isFinite(likelihood) || likelihood < 0 || likelihood > 1) return;
    const bin = Math.min(CALIBRATION_BINS - 1, Math.floor(likelihood * CALIBRATION_BINS));
    this.counts[bin]! += 1;
    this.likelihoods[bin]! += likelihood;
    if (exact) this.exact[bin]! += 1;
    this.total += 1;
  }

  /** Null when no leaf carried a likelihood. */
  result(): Calibration | null {
    if (this.total === 0) return null;
    let ece = 0;
    const bins = this.counts.map((count, i) => {
      const mean = count === 0 ? null : this.likelihoods[i]! / count;
      const rate = count === 0 ? null : this.exact[i]! / count;
      if (mean !== null && rate !== null) ece += (count / this.total) * Math.abs(mean - rate);
      return { lower: i / CALIBRATION_BINS, upper: (i + 1) / CALIBRATION_BINS, count, mean_likelihood: mean, exact_rate: rate };
    });
    return { ece, bins };
  }
}
