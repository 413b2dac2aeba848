import { reconcile } from '@docevals/core';
import { describe, expect, it } from 'vitest';

describe('reconcile', () => {
  it('takes the majority value at every leaf, with the share of runs agreeing as its likelihood', () => {
    const { prediction, likelihoods } = reconcile([
      { vendor: 'ACME', total: 100, paid: true },
      { vendor: 'ACME', total: 120, paid: true },
      { vendor: 'Acme.', total: 100, paid: false },
    ]);
    // "Acme." normalizes like "ACME" (leafSimilarity 1): it joins the first group; the first run's spelling wins.
    expect(prediction).toEqual({ vendor: 'ACME', total: 100, paid: true });
    expect(likelihoods).toEqual({ vendor: 1, total: 2 / 3, paid: 2 / 3 });
  });

  it('gives 1 everywhere when all agree, and for a single output', () => {
    const output = { a: 'x', nested: { b: 2, c: null }, list: [{ d: 'y' }], empty: [] };
    expect(reconcile([output, output, output]).likelihoods).toEqual({ a: 1, nested: { b: 1, c: 1 }, list: [{ d: 1 }], empty: 1 });
    expect(reconcile([output])).toEqual({ prediction: output, likelihoods: { a: 1, nested: { b: 1, c: 1 }, list: [{ d: 1 }], empty: 1 } });
  });

  it('returns an empty prediction for no outputs', () => {
    expect(reconcile([])).toEqual({ prediction: {}, likelihoods: {} });
  });

  it('gives likelihoods {} (an object, not the number 1) when the reconciled prediction is {}', () => {
    expect(reconcile([{}, {}, {}])).toEqual({ prediction: {}, likelihoods: {} });
    expect(reconcile([{}])).toEqual({ prediction: {}, likelihoods: {} });
    // The pivot (closest to the others on average) is {}: its shape wins, another run's object is not voted in.
    expect(reconcile([{}, {}, { total: 3 }])).toEqual({ prediction: {}, likelihoods: {} });
  });

  it('aligns array items across runs before voting, whatever their order', () => {
    const { prediction, likelihoods } = reconcile([
      { items: [{ sku: 'A1', qty: 1 }, { sku: 'B2', qty: 2 }] },
      { items: [{ sku: 'B2', qty: 2 }, { sku: 'A1', qty: 1 }] },
      { items: [{ sku: 'B2', qty: 3 }, { sku: 'A1', qty: 1 }] },
    ]);
    // The pivot is the second run (unaligned, it is the closest to the others): its order is kept.
    expect(prediction).toEqual({ items: [{ sku: 'B2', qty: 2 }, { sku: 'A1', qty: 1 }] });
    expect(likelihoods).toEqual({ items: [{ sku: 1, qty: 2 / 3 }, { sku: 1, qty: 1 }] });
  });

  it('keeps a pivot item only when a majority of runs has a matching item, and drops items the pivot lacks', () => {
    const { prediction } = reconcile([
      { items: [{ sku: 'A1', name: 'Bolt' }, { sku: 'B2', name: 'Nut' }, { sku: 'Z9', name: 'Ghost' }] },
      { items: [{ sku: 'A1', name: 'Bolt' }, { sku: 'B2', name: 'Nut' }] },
      { items: [{ sku: 'A1', name: 'Bolt' }, { sku: 'B2', name: 'Nut' }, { sku: 'Q7', name: 'Washer' }] },
    ]);
    // The pivot is the second run (closest to the others); Z9 and Q7 each appear in one run only.
    expect(prediction).toEqual({ items: [{ sku: 'A1', name: 'Bolt' }, { sku: 'B2', name: 'Nut' }] });
  });

  it('drops keys the pivot lacks and votes null where a run has nothing', () => {
    const { prediction, likelihoods } = reconcile([
      { a: 1, b: 'x' },
      { a: 1, b: 'x' },
      { a: 1, extra: true },
    ]);
    expect(prediction).toEqual({ a: 1, b: 'x' });
    expect(likelihoods).toEqual({ a: 1, b: 2 / 3 });
  });

  it('breaks a tie between groups by the mean similarity of their first value, then by run order', () => {
    // Two groups of two: 100 (runs 1, 3) and 98 (runs 2, 4) — 98 is not closer on average than 100, so the earliest wins.
    expect(reconcile([{ t: 100 }, { t: 98 }, { t: 100 }, { t: 98 }]).prediction).toEqual({ t: 100 });
    // Groups "abc" x1, "xyz" x1, "abd" x1: "abc" and "abd" are closer to the rest than "xyz"; "abc" is first.
    const { prediction, likelihoods } = reconcile([{ s: 'xyz' }, { s: 'abc' }, { s: 'abd' }]);
    expect(prediction.s).toBe('abc');
    expect(likelihoods.s).toBeCloseTo(1 / 3, 12);
  });

  it('keeps a key named __proto__ as data', () => {
    const output = JSON.parse('{"__proto__": {"x": 1}}');
    const { prediction } = reconcile([output, output]);
    expect(Object.keys(prediction)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(prediction)).toBe(Object.prototype);
  });
});
