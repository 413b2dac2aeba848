import type { ChildRecordBase, ChildTotals } from '../storage.js';

/**
 * Per-parent running totals of a child collection, kept by the in-process adapters (memory, lowdb): `count` and the
 * sum of each `totals` key, moved by the difference between the record a write replaces and the record it stores.
 * When the parent has no child left the sums reset to none, so floating-point drift never outlives the children.
 */
export class RunningTotals {
  count = 0;
  sums: Record<string, number> = {};

  /** Applies one write: `before` is the stored record it replaces or removes (if any), `after` the one it stores. */
  apply(before: ChildRecordBase | undefined, after: ChildRecordBase | undefined): void {
    if (before) {
      this.count--;
      addInto(this.sums, before.totals, -1);
    }
    if (after) {
      this.count++;
      addInto(this.sums, after.totals, 1);
    }
    if (this.count === 0) this.sums = {};
  }

  snapshot(): ChildTotals {
    return { count: this.count, sums: { ...this.sums } };
  }
}

/** Adds `sign` × each finite number of `totals` into `sums`. */
export function addInto(sums: Record<string, number>, totals: Record<string, number> | undefined, sign: 1 | -1): void {
  if (!totals) return;
  for (const key of Object.keys(totals)) {
    const value = totals[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    sums[key] = (Object.hasOwn(sums, key) ? sums[key]! : 0) + sign * value;
  }
}

/** The empty totals of a parent without children. */
export function noTotals(): ChildTotals {
  return { count: 0, sums: {} };
}
