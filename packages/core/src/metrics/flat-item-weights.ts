/**
 * The first (bounded) weights of one array level of docs/spec/metrics.md section 4 when every item on both sides is
 * a flat object of one key list (invoice line items, table rows): computed one field at a time over columns instead
 * of one pair at a time through the section-3 walk. A 60 x 60 level weighs 3,600 pairs of 7 leaves; the walk spent
 * most of its time on calls, kind dispatch and a running sum per pair, the columns on arithmetic.
 *
 * The result is bit for bit what `sumRoots` in bound mode gives for each pair: the same per-leaf scores (exact ones
 * from `leafScore`, the signature bound for two different non-empty strings), added in the same order (field by
 * field, from 0), divided by the same count, plus the same stay bonus on the diagonal.
 */
import { leafScore, numberSimilarity } from './leaf-similarity.js';
import { sharedBits, signatureBound } from './normalize-text.js';
import { boundedLeafScore, Sum } from './section-walk.js';
import { ARRAY, NUM, OBJECT, STR, type ValueNode } from './value-node.js';

/** Among assignments of equal total, the one keeping the most items in place wins (section 4, step 2). */
export const STAY_BONUS = 1e-9;

/** The items' shared key list when every item of both sides is a non-empty object of it with leaves only, else null. */
export function flatItemLayout(aItems: readonly ValueNode[], pItems: readonly ValueNode[]): string[] | null {
  const keys = aItems[0]?.keys;
  if (keys === undefined || aItems[0]!.kind !== OBJECT) return null;
  for (const items of [aItems, pItems]) {
    for (const item of items) {
      if (item.kind !== OBJECT || item.keys !== keys) return null;
      for (const child of item.children) if (child.kind >= ARRAY) return null;
    }
  }
  return keys;
}

/**
 * Fills `weights` (row-major n x m, zeros on entry) with each pair's bounded similarity plus the stay bonus, and
 * `exact` with 1 where no bound was used (0 elsewhere). The caller checked {@link flatItemLayout}.
 */
export function flatItemWeights(
  aItems: readonly ValueNode[],
  pItems: readonly ValueNode[],
  fields: number,
  weights: Float64Array,
  exact: Uint8Array,
): void {
  const n = aItems.length;
  const m = pItems.length;
  exact.fill(1);
  for (let f = 0; f < fields; f++) {
    const xs = aItems.map((item) => item.children[f]!);
    const ys = pItems.map((item) => item.children[f]!);
    if (allNumbers(xs) && allNumbers(ys)) addNumbers(xs, ys, weights);
    else if (allPlainStrings(xs) && allPlainStrings(ys)) addStrings(xs, ys, weights, exact);
    else addLeaves(xs, ys, weights, exact);
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) weights[i * m + j] = weights[i * m + j]! / fields + (i === j ? STAY_BONUS : 0);
  }
}

const allNumbers = (nodes: readonly ValueNode[]) => nodes.every((node) => node.kind === NUM);
/** Strings whose `units` are exact (no code-point fallback): the signature bound applies to them. */
const allPlainStrings = (nodes: readonly ValueNode[]) => nodes.every((node) => node.kind === STR && node.text.codePoints === null);

function addNumbers(xs: readonly ValueNode[], ys: readonly ValueNode[], weights: Float64Array): void {
  const m = ys.length;
  const y = new Float64Array(m);
  for (let j = 0; j < m; j++) y[j] = ys[j]!.num;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!.num;
    const row = i * m;
    for (let j = 0; j < m; j++) weights[row + j] += numberSimilarity(x, y[j]!);
  }
}

/** Two strings: 1 when their units are equal, exact when one is empty, else the signature bound (not exact). */
function addStrings(xs: readonly ValueNode[], ys: readonly ValueNode[], weights: Float64Array, exact: Uint8Array): void {
  const m = ys.length;
  const yTexts = ys.map((node) => node.text);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const text = x.text;
    const units = text.units;
    const row = i * m;
    for (let j = 0; j < m; j++) {
      const other = yTexts[j]!;
      if (units === other.units) {
        weights[row + j] += 1;
      } else if (units.length === 0 || other.units.length === 0) {
        weights[row + j] += leafScore(x, ys[j]!);
      } else {
        const shared = sharedBits(text, other);
        weights[row + j] += signatureBound(units.length, text.signatureBits, other.units.length, other.signatureBits, shared);
        exact[row + j] = 0;
      }
    }
  }
}

/** Any leaves: what the section-3 walk's bounded leaf score does, pair by pair. */
function addLeaves(xs: readonly ValueNode[], ys: readonly ValueNode[], weights: Float64Array, exact: Uint8Array): void {
  const m = ys.length;
  const sum = new Sum(true);
  for (let i = 0; i < xs.length; i++) {
    for (let j = 0; j < m; j++) {
      sum.inexact = false;
      weights[i * m + j] += boundedLeafScore(xs[i]!, ys[j]!, sum);
      if (sum.inexact) exact[i * m + j] = 0;
    }
  }
}
