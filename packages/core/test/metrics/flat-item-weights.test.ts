import { describe, expect, it } from 'vitest';
import { flatItemLayout, flatItemWeights, STAY_BONUS } from '../../src/metrics/flat-item-weights.js';
import { TextContext } from '../../src/metrics/normalize-text.js';
import { Sum, sumRoots } from '../../src/metrics/section-walk.js';
import { prepareValue, type ValueNode } from '../../src/metrics/value-node.js';

/** Seeded items of one key list: strings (astral and empty ones too), numbers, booleans, nulls, empty containers. */
function randomItems(seed: number, count: number, mixed: boolean): unknown[] {
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const word = () => Array.from({ length: Math.floor(next() * 9) }, () => 'abcdeé 𠀀.Ж'[Math.floor(next() * 10)]).join('');
  const leaf = () => [null, '', 0, true, false, [], {}, 12.5, word()][Math.floor(next() * 9)];
  return Array.from({ length: count }, () => ({
    name: word(),
    code: next() < 0.2 ? '' : word(),
    qty: Math.floor(next() * 5) - 1,
    price: next() * 100,
    flag: next() < 0.5,
    any: mixed ? leaf() : word(),
  }));
}

/** What the pair-by-pair walk gives: the reference the columns must equal bit for bit. */
function pairByPair(aItems: ValueNode[], pItems: ValueNode[]) {
  const m = pItems.length;
  const weights = new Float64Array(aItems.length * m);
  const exact = new Uint8Array(aItems.length * m);
  aItems.forEach((a, i) =>
    pItems.forEach((p, j) => {
      const sum = new Sum(true);
      sumRoots(a, p, sum);
      weights[i * m + j] = sum.mean() + (i === j ? STAY_BONUS : 0);
      exact[i * m + j] = sum.inexact ? 0 : 1;
    }),
  );
  return { weights, exact };
}

describe('flatItemWeights', () => {
  it('gives bit for bit the weights and exactness of the pair-by-pair walk', () => {
    for (let trial = 0; trial < 60; trial++) {
      const texts = new TextContext();
      const aItems = prepareValue(randomItems(trial * 2 + 1, 1 + (trial % 9), trial % 2 === 0), texts).children;
      const pItems = prepareValue(randomItems(trial * 2 + 2, 1 + ((trial * 5) % 11), trial % 3 === 0), texts).children;
      const layout = flatItemLayout(aItems, pItems);
      expect(layout).not.toBeNull();
      const weights = new Float64Array(aItems.length * pItems.length);
      const exact = new Uint8Array(aItems.length * pItems.length);
      flatItemWeights(aItems, pItems, layout!.length, weights, exact);
      const expected = pairByPair(aItems, pItems);
      expect(Array.from(weights)).toEqual(Array.from(expected.weights));
      expect(Array.from(exact)).toEqual(Array.from(expected.exact));
      expect(exact.includes(0)).toBe(true); // the bound was used, not only exact scores
    }
  });

  it('takes only items that are all objects of one key list with leaves only', () => {
    const texts = new TextContext();
    const items = (value: unknown) => prepareValue(value, texts).children;
    expect(flatItemLayout(items([{ a: 1, b: 'x' }]), items([{ a: 2, b: '' }, { a: 3, b: null }]))).toEqual(['a', 'b']);
    expect(flatItemLayout(items([{ a: 1, b: 'x' }]), items([{ b: 'x', a: 1 }]))).toBeNull(); // another key order
    expect(flatItemLayout(items([{ a: 1 }]), items([{ a: [1] }]))).toBeNull(); // an array inside
    expect(flatItemLayout(items([{ a: 1 }]), items([{ a: { b: 1 } }]))).toBeNull(); // an object inside
    expect(flatItemLayout(items([{ a: [] }]), items([{ a: {} }]))).toEqual(['a']); // empty containers are leaves
    expect(flatItemLayout(items(['x']), items(['y']))).toBeNull();
    expect(flatItemLayout(items([{ a: 1 }]), items(['y']))).toBeNull();
  });
});
