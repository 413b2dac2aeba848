/**
 * The walk of docs/spec/metrics.md section 3 over prepared values, in two forms: `similarityOf` only sums scores (the hot
 * path: it runs for every pair of items alignment weighs), `scoreDocument` also writes every path and the tree.
 * Both dispatch the four cases in the same order; the tests check that they agree on every vector.
 */
import { leafScore } from './leaf-similarity.js';
import { type ScorePath, scorePathRoot } from './score-paths.js';
import { textSimilarityUpperBound } from './normalize-text.js';
import { ARRAY, EMPTY_ARRAY, EMPTY_OBJECT, MISSING, NULL, OBJECT, setOwn, STR, type ValueNode } from './value-node.js';

export { escapeSegment } from './score-paths.js';

/** A nested tree of scores keyed by the original keys (array indices as strings). */
export interface SimilarityTree {
  [key: string]: number | SimilarityTree;
}

/** Running sum of scores. In `bound` mode string leaves may add an upper bound instead, and set `inexact`. */
export class Sum {
  total = 0;
  count = 0;
  inexact = false;
  constructor(readonly bound: boolean) {}

  /** The mean, 1 when nothing was scored. */
  mean(): number {
    return this.count === 0 ? 1 : this.total / this.count;
  }
}

const isObjectKind = (k: number) => k === OBJECT || k === EMPTY_OBJECT;
const isArrayKind = (k: number) => k === ARRAY || k === EMPTY_ARRAY;
const isFilled = (k: number) => k === OBJECT || k === ARRAY;
const isNullOrEmpty = (k: number) => k === NULL || k === EMPTY_ARRAY || k === EMPTY_OBJECT;

/**
 * Section-3 `similarity` of two values taken as roots (both objects always walk their keys, `{}` vs `{}` scores
 * nothing and so 1): the mean of the scores, without building a path or a tree.
 */
export function similarityOf(a: ValueNode, b: ValueNode): number {
  const sum = new Sum(false);
  sumRoots(a, b, sum);
  return sum.mean();
}

/**
 * Adds the scores of two roots to `sum`. With `sum.bound`, a pair of different non-empty strings adds a cheap upper
 * bound of its score and sets `sum.inexact`: the mean is then an upper bound of the similarity, which is what
 * alignment needs to skip most of the Levenshtein distances of a matrix of items.
 */
export function sumRoots(a: ValueNode, b: ValueNode, sum: Sum): void {
  if (isObjectKind(a.kind) && isObjectKind(b.kind)) sumObjects(a, b, sum);
  else sumPair(a, b, sum);
}

/** A leaf's score, or (two different non-empty strings) its signature bound, setting `sum.inexact`. */
export function boundedLeafScore(a: ValueNode, b: ValueNode, sum: Sum): number {
  if (a.kind !== STR || b.kind !== STR) return leafScore(a, b);
  // Equal or one empty: the exact score costs nothing. Otherwise a bound from the strings' signatures.
  if (a.text.units === b.text.units || a.text.units.length === 0 || b.text.units.length === 0) return leafScore(a, b);
  sum.inexact = true;
  return textSimilarityUpperBound(a.text, b.text);
}

function sumPair(a: ValueNode, b: ValueNode, sum: Sum): void {
  const ka = a.kind;
  const kb = b.kind;
  if (isObjectKind(ka) && isObjectKind(kb) && (ka === OBJECT || kb === OBJECT)) return sumObjects(a, b, sum);
  if (isArrayKind(ka) && isArrayKind(kb) && (ka === ARRAY || kb === ARRAY)) return sumArrays(a, b, sum);
  if (!isFilled(ka) && !isFilled(kb)) {
    sum.total += sum.bound ? boundedLeafScore(a, b, sum) : leafScore(a, b);
    sum.count += 1;
    return;
  }
  // Case 4. The filled side is the annotation's when both are filled containers of different kinds.
  const filled = isFilled(ka) ? a : b;
  const other = filled === a ? b : a;
  if (isNullOrEmpty(other.kind)) sum.total += filled.nullScore;
  sum.count += filled.leafCount;
}

function sumObjects(a: ValueNode, b: ValueNode, sum: Sum): void {
  const aKeys = a.keys;
  const bKeys = b.keys;
  const aChildren = a.children;
  const bChildren = b.children;
  if (aKeys === bKeys) {
    // Same key list (shared by the preparation): pair children by position, leaves without a call.
    for (let i = 0; i < aChildren.length; i++) {
      const x = aChildren[i]!;
      const y = bChildren[i]!;
      if (x.kind < ARRAY && y.kind < ARRAY) {
        sum.total += sum.bound ? boundedLeafScore(x, y, sum) : leafScore(x, y);
        sum.count += 1;
      } else {
        sumPair(x, y, sum);
      }
    }
    return;
  }
  let found = 0;
  for (let i = 0; i < aKeys.length; i++) {
    const key = aKeys[i]!;
    // Items of one list usually share their key order: try the same position before searching.
    const j = i < bKeys.length && bKeys[i] === key ? i : b.indexOf(key);
    if (j >= 0) found++;
    sumPair(aChildren[i]!, j >= 0 ? bChildren[j]! : MISSING, sum);
  }
  if (found === bKeys.length) return; // keys are unique: every key of b was one of a's
  for (let j = 0; j < bKeys.length; j++) {
    const key = bKeys[j]!;
    if ((j < aKeys.length && aKeys[j] === key) || a.indexOf(key) >= 0) continue;
    sumPair(MISSING, bChildren[j]!, sum);
  }
}

function sumArrays(a: ValueNode, b: ValueNode, sum: Sum): void {
  const aItems = a.children;
  const bItems = b.children;
  const length = Math.max(aItems.length, bItems.length);
  for (let i = 0; i < length; i++) sumPair(aItems[i] ?? MISSING, bItems[i] ?? MISSING, sum);
}

/** The three section-3 figures of one document. */
export interface DocumentScores {
  similarity: number;
  flat_similarities: Record<string, number>;
  similarities: SimilarityTree;
}

/** Section 3 with paths and tree, for two prepared objects (the roots of an annotation and a prediction). */
export function scoreDocument(a: ValueNode, b: ValueNode): DocumentScores {
  const out = new Output();
  out.objects(a, b, scorePathRoot(), out.tree);
  return {
    similarity: out.count === 0 ? 1 : out.total / out.count,
    flat_similarities: out.flat,
    similarities: out.tree,
  };
}

class Output {
  readonly flat: Record<string, number> = {};
  readonly tree: SimilarityTree = {};
  total = 0;
  count = 0;

  /** `at` is the place of the pair, `key` its key (or index) in `parent`. */
  pair(a: ValueNode, b: ValueNode, at: ScorePath, parent: SimilarityTree, key: string): void {
    const ka = a.kind;
    const kb = b.kind;
    if (isObjectKind(ka) && isObjectKind(kb) && (ka === OBJECT || kb === OBJECT)) {
      return this.objects(a, b, at, this.branch(parent, key));
    }
    if (isArrayKind(ka) && isArrayKind(kb) && (ka === ARRAY || kb === ARRAY)) {
      const tree = this.branch(parent, key);
      const length = Math.max(a.children.length, b.children.length);
      for (let i = 0; i < length; i++) {
        const index = String(i);
        this.pair(a.children[i] ?? MISSING, b.children[i] ?? MISSING, at.child(index), tree, index);
      }
      return;
    }
    if (!isFilled(ka) && !isFilled(kb)) return this.score(at, parent, key, leafScore(a, b));
    const filled = isFilled(ka) ? a : b;
    const other = filled === a ? b : a;
    this.leaves(filled, isNullOrEmpty(other.kind), at, parent, key);
  }

  objects(a: ValueNode, b: ValueNode, at: ScorePath, tree: SimilarityTree): void {
    for (let i = 0; i < a.keys.length; i++) {
      const key = a.keys[i]!;
      const j = b.indexOf(key);
      this.pair(a.children[i]!, j >= 0 ? b.children[j]! : MISSING, at.child(key), tree, key);
    }
    for (let j = 0; j < b.keys.length; j++) {
      const key = b.keys[j]!;
      if (a.indexOf(key) < 0) this.pair(MISSING, b.children[j]!, at.child(key), tree, key);
    }
  }

  /** Case 4: every leaf of `node` scores against null (`againstNull`) or 0. */
  private leaves(node: ValueNode, againstNull: boolean, at: ScorePath, parent: SimilarityTree, key: string): void {
    if (node.kind !== OBJECT && node.kind !== ARRAY) {
      return this.score(at, parent, key, againstNull ? leafScore(node, MISSING) : 0);
    }
    const tree = this.branch(parent, key);
    for (let i = 0; i < node.children.length; i++) {
      const childKey = node.kind === OBJECT ? node.keys[i]! : String(i);
      this.leaves(node.children[i]!, againstNull, at.child(childKey), tree, childKey);
    }
  }

  private branch(parent: SimilarityTree, key: string): SimilarityTree {
    const tree: SimilarityTree = {};
    setOwn(parent, key, tree);
    return tree;
  }

  private score(at: ScorePath, parent: SimilarityTree, key: string, value: number): void {
    setOwn(this.flat, at.path, value);
    setOwn(parent, key, value);
    this.total += value;
    this.count += 1;
  }
}
