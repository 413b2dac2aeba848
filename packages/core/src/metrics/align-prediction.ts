/**
 * Alignment of docs/spec/metrics.md section 4: every array of the prediction reordered to best match the annotation's array
 * at the same place, inner arrays first, by a maximum-weight assignment with a 1e-9 bonus for keeping an item
 * where it was.
 */
import { validationError } from '../errors.js';
import type { JsonValue } from '../json/assert-json.js';
import { flatItemLayout, flatItemWeights, STAY_BONUS } from './flat-item-weights.js';
import { TextContext } from './normalize-text.js';
import { similarityOf, Sum, sumRoots } from './section-walk.js';
import { AssignmentSolver } from './solve-assignment.js';
import { ARRAY, containerNode, MISSING, nodeToJson, OBJECT, prepareChecked, type ValueNode } from './value-node.js';

/** One chosen pair of an array level: annotation index, prediction index, section-3 similarity of the pair. */
export interface ItemPair {
  a: number;
  p: number;
  similarity: number;
}

interface ArrayMatch {
  pairs: ItemPair[];
  /** The aligned prediction item chosen for each annotation index, or undefined when none was. */
  alignedByA: Array<ValueNode | undefined>;
  /** Prediction indices left without an annotation item, in their original order. */
  leftover: number[];
}

/**
 * What one document's alignment may still spend (docs/spec/metrics.md section 4, Work budget): every pair of items
 * weighed costs the leaves of both items, every array level its n x m pairs first. Past it, {@link alignNode}
 * throws {@link AlignmentBudgetExceeded}, before allocating the level's matrix.
 */
export class AlignmentBudget {
  constructor(public remaining: number) {}

  spend(work: number): void {
    this.remaining -= work;
    if (this.remaining < 0) throw new AlignmentBudgetExceeded();
  }
}

/** Thrown when an alignment ran out of its {@link AlignmentBudget}: the caller scores positionally instead. */
export class AlignmentBudgetExceeded extends Error {
  override readonly name = 'AlignmentBudgetExceeded';
  constructor() {
    super('the alignment work budget is spent');
  }
}

/** No limit: for callers that align small values (consensus, tests). */
const UNLIMITED = new AlignmentBudget(Number.POSITIVE_INFINITY);

/** The prediction `p` aligned to the annotation `a`; returns `p` itself when nothing under it moves. */
export function alignNode(a: ValueNode, p: ValueNode, budget: AlignmentBudget = UNLIMITED): ValueNode {
  if (!a.hasArrays || !p.hasArrays) return p;
  if (a.kind === OBJECT && p.kind === OBJECT) {
    let children: ValueNode[] | null = null;
    for (let j = 0; j < p.keys.length; j++) {
      const i = a.indexOf(p.keys[j]!);
      if (i < 0) continue;
      const child = p.children[j]!;
      const aligned = alignNode(a.children[i]!, child, budget);
      if (aligned === child) continue;
      children ??= p.children.slice();
      children[j] = aligned;
    }
    return children === null ? p : containerNode(OBJECT, undefined, p.keys, children);
  }
  if (a.kind === ARRAY && p.kind === ARRAY) {
    const match = matchArrays(a.children, p.children, budget);
    const children: ValueNode[] = match.alignedByA.map((item) => item ?? MISSING);
    for (const j of match.leftover) children.push(p.children[j]!);
    return containerNode(ARRAY, undefined, [], children);
  }
  return p;
}

/** Rounds of "repair with the chosen pairs made exact" before every remaining weight is made exact. */
const MAX_BOUNDED_ROUNDS = 32;

/**
 * Section 4 steps 1-2 for one array level (both non-empty): weights of every pair, then the optimal pairing.
 *
 * Most of the cost is Levenshtein distances between strings of items that do not belong together. So weights
 * start as upper bounds (a signature bound for two different strings, exact elsewhere); the assignment is solved
 * on them, the chosen pairs get exact weights, and the solution is repaired until every chosen pair is exact.
 * Then the choice is optimal for the exact weights too: its exact total equals its bounded total, which is at
 * least the bounded total, hence at least the exact total, of any other choice. (Bounds and exact scores are
 * summed in the same order, so this holds in floating point as well.)
 */
export function matchArrays(aItems: ValueNode[], pItems: ValueNode[], budget: AlignmentBudget = UNLIMITED): ArrayMatch {
  const n = aItems.length;
  const m = pItems.length;
  budget.spend(n * m);
  const weights = new Float64Array(n * m); // similarity or its upper bound, plus the stay bonus on the diagonal
  const exact = new Uint8Array(n * m);
  const layout = flatItemLayout(aItems, pItems);
  // Aligned prediction items are kept only when alignment changed one (items holding arrays).
  let alignedPairs: Array<ValueNode | undefined> | null = null;
  if (layout !== null) {
    // Nothing to align inside flat items: the same work is spent as pair by pair, at once.
    budget.spend(m * sumLeaves(aItems) + n * sumLeaves(pItems));
    flatItemWeights(aItems, pItems, layout.length, weights, exact);
  } else {
    alignedPairs = boundedWeights(aItems, pItems, budget, weights, exact);
  }
  const alignedAt = (i: number, j: number) => alignedPairs?.[i * m + j] ?? pItems[j]!;
  const makeExact = (i: number, j: number) => {
    exact[i * m + j] = 1;
    weights[i * m + j] = similarityOf(aItems[i]!, alignedAt(i, j)) + (i === j ? STAY_BONUS : 0);
  };
  let solver = new AssignmentSolver(weights, n, m);
  for (let round = 0; ; round++) {
    const columnOf = solver.columnOf();
    const lowered: Array<[number, number]> = [];
    for (let i = 0; i < n; i++) {
      const j = columnOf[i]!;
      if (j < 0 || exact[i * m + j]) continue;
      makeExact(i, j);
      solver.setWeight(i, j, weights[i * m + j]!);
      lowered.push([i, j]);
    }
    if (lowered.length === 0) break;
    if (round < MAX_BOUNDED_ROUNDS) {
      solver.repair(lowered);
    } else {
      // Many near-equal candidates keep displacing each other: make every weight exact and solve once more.
      for (let k = 0; k < n * m; k++) if (!exact[k]) makeExact(Math.floor(k / m), k % m);
      solver = new AssignmentSolver(weights, n, m);
    }
  }
  const columnOf = solver.columnOf();
  const pairs: ItemPair[] = [];
  const alignedByA: Array<ValueNode | undefined> = new Array<ValueNode | undefined>(n).fill(undefined);
  const taken = new Uint8Array(m);
  for (let i = 0; i < n; i++) {
    const j = columnOf[i]!;
    if (j < 0) continue;
    taken[j] = 1;
    // Recomputed rather than un-bonused: subtracting 1e-9 would not give the similarity back bit for bit.
    const similarity = similarityOf(aItems[i]!, alignedAt(i, j));
    pairs.push({ a: i, p: j, similarity });
    alignedByA[i] = alignedAt(i, j);
  }
  const leftover: number[] = [];
  for (let j = 0; j < m; j++) if (!taken[j]) leftover.push(j);
  return { pairs, alignedByA, leftover };
}

const sumLeaves = (items: readonly ValueNode[]) => items.reduce((total, item) => total + item.leafCount, 0);

/**
 * Bounded weights pair by pair through the section-3 walk, inner arrays aligned first; returns the aligned
 * prediction items where alignment changed one (null when none did).
 */
function boundedWeights(
  aItems: ValueNode[],
  pItems: ValueNode[],
  budget: AlignmentBudget,
  weights: Float64Array,
  exact: Uint8Array,
): Array<ValueNode | undefined> | null {
  const n = aItems.length;
  const m = pItems.length;
  let alignedPairs: Array<ValueNode | undefined> | null = null;
  for (let i = 0; i < n; i++) {
    const ai = aItems[i]!;
    for (let j = 0; j < m; j++) {
      const pj = pItems[j]!;
      budget.spend(ai.leafCount + pj.leafCount);
      const aligned = alignNode(ai, pj, budget);
      if (aligned !== pj) (alignedPairs ??= new Array(n * m))[i * m + j] = aligned;
      const sum = new Sum(true);
      sumRoots(ai, aligned, sum);
      weights[i * m + j] = sum.mean() + (i === j ? STAY_BONUS : 0);
      if (!sum.inexact) exact[i * m + j] = 1;
    }
  }
  return alignedPairs;
}

/**
 * The prediction with every array reordered to match the annotation (docs/spec/metrics.md section 4, recursively): the
 * prediction item paired with annotation item i stands at index i, prediction items left over follow in their
 * original order. An annotation index that got no prediction item (prediction shorter) holds `null`, which
 * section 3 scores exactly like a missing value, so `compareDocuments(a, alignPrediction(a, p))` gives the
 * aligned figures as its unaligned ones. Use {@link matchItems} to tell a filled slot from an empty one.
 * Subtrees that do not move are returned as given (not copied).
 *
 * @example
 * alignPrediction({ items: [{ sku: 'A' }, { sku: 'B' }] }, { items: [{ sku: 'B' }, { sku: 'A' }] });
 * // { items: [{ sku: 'A' }, { sku: 'B' }] }
 */
export function alignPrediction(annotation: JsonValue, prediction: JsonValue): JsonValue {
  const texts = new TextContext();
  return nodeToJson(alignNode(prepareChecked(annotation, texts, 'annotation'), prepareChecked(prediction, texts, 'prediction')));
}

/**
 * The optimal pairing of one array level (docs/spec/metrics.md section 4 steps 1-2): min(n, m) pairs, each with the section-3
 * similarity of the annotation item and the prediction item after aligning the arrays inside them. Pairs are
 * sorted by annotation index.
 *
 * @example
 * matchItems([{ sku: 'A' }, { sku: 'B' }], [{ sku: 'B' }]);
 * // { pairs: [{ a: 1, p: 0, similarity: 1 }] }
 */
export function matchItems(a: JsonValue[], p: JsonValue[]): { pairs: ItemPair[] } {
  if (!Array.isArray(a)) throw notAnArray('a');
  if (!Array.isArray(p)) throw notAnArray('p');
  const texts = new TextContext();
  const aItems = prepareChecked(a, texts, 'a').children;
  const pItems = prepareChecked(p, texts, 'p').children;
  if (aItems.length === 0 || pItems.length === 0) return { pairs: [] };
  return { pairs: matchArrays(aItems, pItems).pairs };
}

function notAnArray(path: string) {
  return validationError(`"${path}": an array is required.`, [{ path, message: 'not an array' }]);
}
