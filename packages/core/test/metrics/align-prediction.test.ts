import { describe, expect, it } from 'vitest';
import { alignPrediction, compareDocuments, matchItems, solveAssignment, type JsonObject } from '../../src/index.js';
import { expectValidationError, nested } from './expect-validation-error.js';
import { firstDifference, loadVectors } from './load-vectors.js';

describe('alignPrediction', () => {
  it('reorders prediction items to the annotation order', () => {
    expect(alignPrediction({ items: [{ sku: 'A' }, { sku: 'B' }] }, { items: [{ sku: 'B' }, { sku: 'A' }], x: 1 })).toEqual({
      items: [{ sku: 'A' }, { sku: 'B' }],
      x: 1,
    });
  });

  it('puts null where an annotation item got no prediction item, and appends extras in order', () => {
    expect(alignPrediction({ l: ['aaa', 'bbb', 'ccc'] }, { l: ['ccc', 'aaa'] })).toEqual({ l: ['aaa', null, 'ccc'] });
    expect(alignPrediction({ l: ['bbb'] }, { l: ['xxx', 'bbb', 'yyy'] })).toEqual({ l: ['bbb', 'xxx', 'yyy'] });
  });

  it('does not modify its arguments', () => {
    const prediction = { l: ['bbb', 'aaa'] };
    alignPrediction({ l: ['aaa', 'bbb'] }, prediction);
    expect(prediction).toEqual({ l: ['bbb', 'aaa'] });
  });

  it('gives the aligned figures as unaligned ones (every vector)', () => {
    for (const c of loadVectors().items) {
      const a = c.annotation as JsonObject;
      const aligned = alignPrediction(a, c.prediction as JsonObject) as JsonObject;
      const r = compareDocuments(a, aligned);
      expect(firstDifference(r.flat_similarities, c.aligned_flat_similarities)).toBeNull();
      expect(r.similarity).toBeCloseTo(c.aligned_similarity, 9);
    }
  });

  it('refuses values that are not JSON', () => {
    expectValidationError(() => alignPrediction({ a: [1] }, { a: [undefined] } as never), 'prediction.a.0');
    expectValidationError(() => alignPrediction(nested(65) as JsonObject, {}), `annotation${'.a'.repeat(64)}`);
  });
});

describe('matchItems', () => {
  it('pairs min(n, m) items with their similarity', () => {
    expect(matchItems([{ sku: 'AAA' }, { sku: 'BBB' }], [{ sku: 'BBB' }])).toEqual({ pairs: [{ a: 1, p: 0, similarity: 1 }] });
    expect(matchItems([], [1])).toEqual({ pairs: [] });
    const { pairs } = matchItems([10, 20], [19, 10, 50]);
    expect(pairs.map(({ a, p }) => [a, p])).toEqual([[0, 1], [1, 0]]);
    expect(pairs[1]!.similarity).toBeCloseTo(0.95, 12);
  });

  it('among equal totals keeps the most items in place', () => {
    // A0 and A1 both match P1 and P2 perfectly; only A1 <- P1 keeps an item at its index.
    const { pairs } = matchItems([{ s: 'A' }, { s: 'A' }, { s: 'B' }], [{ s: 'B' }, { s: 'A' }, { s: 'A' }]);
    expect(pairs).toEqual([
      { a: 0, p: 2, similarity: 1 },
      { a: 1, p: 1, similarity: 1 },
      { a: 2, p: 0, similarity: 1 },
    ]);
    // Duplicates in the annotation: the first keeps its place, the second is left without a partner.
    expect(matchItems(['dup', 'dup'], ['dup']).pairs).toEqual([{ a: 0, p: 0, similarity: 1 }]);
  });

  it('weighs pairs after aligning their inner arrays', () => {
    const { pairs } = matchItems([[1, 2]], [[2, 1]]);
    expect(pairs).toEqual([{ a: 0, p: 0, similarity: 1 }]);
  });

  it('finds the optimum where a greedy choice would not', () => {
    // Greedy takes A0-P0 (0.9) and then A1-P1 (0.1); the optimum is A0-P1 + A1-P0 = 0.8 + 0.8.
    const { pairs } = matchItems([100, 8], [90, 80].map((x, i) => (i === 0 ? 10 : x)));
    expect(pairs.map(({ a, p }) => [a, p])).toEqual([[0, 1], [1, 0]]);
  });

  it('refuses arguments that are not arrays of JSON', () => {
    expectValidationError(() => matchItems({} as never, []), 'a');
    expectValidationError(() => matchItems([1], [Number.NaN]), 'p.0');
  });
});

describe('matchItems against a plain solution (seeded)', () => {
  it('reaches the optimum of exact weights, bounds and repairs notwithstanding', () => {
    let seed = 99;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const word = () => Array.from({ length: 1 + Math.floor(next() * 6) }, () => 'abcde𠀀é'[Math.floor(next() * 7)]).join('');
    const item = () => ({ name: word(), code: word(), qty: Math.floor(next() * 5), tags: next() < 0.3 ? [word(), word()] : [] });
    for (let trial = 0; trial < 150; trial++) {
      const a = Array.from({ length: 1 + Math.floor(next() * 7) }, item);
      const p = Array.from({ length: 1 + Math.floor(next() * 7) }, item);
      const { pairs } = matchItems(a, p);
      // Exact weight of every pair on its own (a 1 x 1 match is always made exact), then the plain solver.
      const w = a.map((x) => p.map((y) => matchItems([x], [y]).pairs[0]!.similarity));
      const withBonus = w.map((row, i) => row.map((v, j) => v + (i === j ? 1e-9 : 0)));
      const best = solveAssignment(withBonus).reduce((sum, j, i) => (j >= 0 ? sum + withBonus[i]![j]! : sum), 0);
      const got = pairs.reduce((sum, { a: i, p: j, similarity }) => {
        expect(similarity).toBeCloseTo(w[i]![j]!, 12);
        return sum + withBonus[i]![j]!;
      }, 0);
      expect(pairs).toHaveLength(Math.min(a.length, p.length));
      expect(got).toBeCloseTo(best, 12);
    }
  });
});
