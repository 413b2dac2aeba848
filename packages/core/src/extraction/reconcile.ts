import { validationError } from '../errors.js';
import { assertJson, type JsonObject, type JsonValue } from '../json/assert-json.js';
import { documentSimilarity, leafSimilarity, matchItems } from '../metrics/index.js';

/** Consensus of several outputs: the reconciled prediction and, at each of its leaves, the share of runs agreeing. */
export interface Reconciled {
  prediction: JsonObject;
  /** Same shape as `prediction`; a number in [0, 1] at every leaf (1 where every output agrees). */
  likelihoods: JsonObject;
}

/** An array item of the pivot is kept when more than half the outputs have an item paired to it at least this well. */
const ITEM_MATCH_THRESHOLD = 0.5;

/**
 * Reconciles the outputs of n runs on one document into one prediction (docs/spec/consensus.md): the pivot is the output
 * most similar on average to the others; array items are kept when a majority of outputs has a matching item;
 * every leaf takes the value of the largest group of outputs that agree on it (`leafSimilarity` of 1).
 * Pass only valid outputs: failed runs do not vote.
 *
 * @example
 * reconcile([{ total: 10 }, { total: 10 }, { total: 12 }]);
 * // { prediction: { total: 10 }, likelihoods: { total: 0.6666666666666666 } }
 */
export function reconcile(outputs: JsonObject[]): Reconciled {
  outputs.forEach((output, i) => {
    assertJson(output, `outputs.${i}`);
    if (output === null || typeof output !== 'object' || Array.isArray(output)) {
      throw validationError(`"outputs.${i}": an object is required.`, [{ path: `outputs.${i}`, message: 'not an object' }]);
    }
  });
  if (outputs.length === 0) return { prediction: {}, likelihoods: {} };
  const pivot = choosePivot(outputs);
  // A pivot of `{}` has no leaf paths: the consensus is `{}` with likelihoods `{}` (an object, as everywhere), never
  // a leaf vote over whole outputs (which gave the number 1, or another run's object).
  if (Object.keys(outputs[pivot]!).length === 0) return { prediction: {}, likelihoods: {} };
  const result = build(outputs[pivot]!, outputs, pivot, outputs.length);
  return { prediction: result.value as JsonObject, likelihoods: result.likelihood as JsonObject };
}

/** The output with the highest mean similarity to the others (docs/spec/metrics.md section 3); ties go to the earliest. */
function choosePivot(outputs: JsonObject[]): number {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  outputs.forEach((candidate, i) => {
    let sum = 0;
    outputs.forEach((other, j) => {
      if (i !== j) sum += documentSimilarity(candidate, other);
    });
    const mean = sum / (outputs.length - 1);
    if (mean > bestScore) {
      best = i;
      bestScore = mean;
    }
  });
  return best;
}

interface Built {
  value: JsonValue;
  likelihood: JsonValue;
}

/**
 * Walks the pivot's value at one path with every output's value at that same path (aligned: inside arrays, the
 * item each output paired with the pivot's item; undefined where an output has nothing there).
 */
function build(pivotValue: JsonValue, values: Array<JsonValue | undefined>, pivot: number, v: number): Built {
  if (isNonEmptyObject(pivotValue)) {
    const value: JsonObject = {};
    const likelihood: JsonObject = {};
    for (const key of Object.keys(pivotValue)) {
      const child = build(
        pivotValue[key]!,
        values.map((x) => (isNonEmptyObject(x) && Object.hasOwn(x, key) ? x[key] : undefined)),
        pivot,
        v,
      );
      setOwn(value, key, child.value);
      setOwn(likelihood, key, child.likelihood);
    }
    return { value, likelihood };
  }
  if (Array.isArray(pivotValue) && pivotValue.length > 0) {
    // For each output, the item it paired with each pivot item (index by pivot index) and how well.
    const pairings = values.map((x, r) => {
      const byPivot = new Map<number, { p: number; similarity: number }>();
      if (r === pivot || !Array.isArray(x) || x.length === 0) return byPivot;
      for (const pair of matchItems(pivotValue, x).pairs) byPivot.set(pair.a, { p: pair.p, similarity: pair.similarity });
      return byPivot;
    });
    const value: JsonValue[] = [];
    const likelihood: JsonValue[] = [];
    pivotValue.forEach((item, i) => {
      let votes = 0;
      values.forEach((_, r) => {
        if (r === pivot) votes++;
        else if ((pairings[r]!.get(i)?.similarity ?? -1) >= ITEM_MATCH_THRESHOLD) votes++;
      });
      if (votes * 2 <= v) return; // items only a minority has are dropped
      const itemValues = values.map((x, r) => {
        if (r === pivot) return item;
        const pair = pairings[r]!.get(i);
        return pair && Array.isArray(x) ? x[pair.p] : undefined;
      });
      const child = build(item, itemValues, pivot, v);
      value.push(child.value);
      likelihood.push(child.likelihood);
    });
    return { value, likelihood };
  }
  return voteLeaf(values.map((x) => (x === undefined ? null : x)));
}

/**
 * Groups the outputs' values at one leaf in run order (a value joins the first group whose first value has a
 * leafSimilarity of 1 with it); the largest group wins, then the one whose first value is closest on average to all
 * values, then the earliest. Its first value is the consensus; its size over v the likelihood.
 */
function voteLeaf(values: JsonValue[]): Built {
  const groups: Array<{ first: JsonValue; size: number }> = [];
  for (const value of values) {
    const group = groups.find((g) => leafSimilarity(g.first, value) === 1);
    if (group) group.size++;
    else groups.push({ first: value, size: 1 });
  }
  let winner = groups[0]!;
  let winnerMean = groups.length > 1 ? meanSimilarity(winner.first, values) : 1;
  for (const group of groups.slice(1)) {
    if (group.size < winner.size) continue;
    const mean = meanSimilarity(group.first, values);
    if (group.size > winner.size || mean > winnerMean) {
      winner = group;
      winnerMean = mean;
    }
  }
  return { value: winner.first, likelihood: winner.size / values.length };
}

function meanSimilarity(value: JsonValue, values: JsonValue[]): number {
  return values.reduce<number>((sum, other) => sum + leafSimilarity(value, other), 0) / values.length;
}

function isNonEmptyObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0;
}

/** Assigns without invoking the `__proto__` setter: a key named `__proto__` stays a plain key. */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
