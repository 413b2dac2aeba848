import { describe, expect, it } from 'vitest';
import { compareDocuments, type JsonObject } from '../../src/index.js';
import { expectValidationError, nested } from './expect-validation-error.js';

const flat = (a: unknown, p: unknown) => compareDocuments(a as JsonObject, p as JsonObject).flat_similarities;

describe('compareDocuments: section 3 cases', () => {
  it('scores two empty documents 1 with no paths', () => {
    expect(compareDocuments({}, {})).toEqual({
      similarity: 1,
      flat_similarities: {},
      similarities: {},
      aligned_similarity: 1,
      aligned_flat_similarities: {},
      aligned_similarities: {},
    });
  });

  it('scores a failed extraction {} 0 on filled values and 1 on empty ones', () => {
    const r = compareDocuments({ a: 1, b: '', c: null, d: 'x' }, {});
    expect(r.flat_similarities).toEqual({ a: 0, b: 1, c: 1, d: 0 });
    expect(r.similarity).toBe(0.5);
  });

  it('walks the keys of the annotation, then those only the prediction has', () => {
    const r = compareDocuments({ a: 'x' }, { b: 'y', a: 'x' });
    expect(Object.keys(r.flat_similarities)).toEqual(['a', 'b']);
    expect(r.flat_similarities).toEqual({ a: 1, b: 0 });
  });

  it('treats empty containers below the top level as leaves', () => {
    expect(flat({ a: {} }, { a: {} })).toEqual({ a: 1 });
    expect(flat({ a: [] }, { a: {} })).toEqual({ a: 1 });
    expect(flat({ a: [] }, { a: null })).toEqual({ a: 1 });
    expect(flat({ a: {} }, { a: 'x' })).toEqual({ a: 0 });
  });

  it('walks two objects when one is empty, and two arrays over the longer length', () => {
    expect(flat({ a: {} }, { a: { x: 1 } })).toEqual({ 'a.x': 0 });
    expect(flat({ a: [] }, { a: [1, 2] })).toEqual({ 'a.0': 0, 'a.1': 0 });
    expect(flat({ a: [1, 2, 3] }, { a: [1] })).toEqual({ 'a.0': 1, 'a.1': 0, 'a.2': 0 });
  });

  it('case 4, other side missing, null or empty: each leaf scores against null', () => {
    expect(flat({ a: [0, '', {}, 'x'] }, { a: null })).toEqual({ 'a.0': 1, 'a.1': 1, 'a.2': 1, 'a.3': 0 });
    expect(flat({ a: [1] }, { a: {} })).toEqual({ 'a.0': 0 });
    expect(flat({ a: { x: { y: 5 } } }, {})).toEqual({ 'a.x.y': 0 });
    expect(flat({ a: null }, { a: { x: false, y: 2 } })).toEqual({ 'a.x': 1, 'a.y': 0 });
  });

  it("case 4, other side filled: the annotation's leaves score 0 when it is the filled container", () => {
    expect(flat({ a: { x: 1, y: [] } }, { a: 'str' })).toEqual({ 'a.x': 0, 'a.y': 0 });
    expect(flat({ a: [1, 2] }, { a: { x: 1 } })).toEqual({ 'a.0': 0, 'a.1': 0 });
    expect(flat({ a: 'str' }, { a: { x: 1, y: '' } })).toEqual({ 'a.x': 0, 'a.y': 0 });
    expect(flat({ a: 7 }, { a: [7] })).toEqual({ 'a.0': 0 });
  });

  it('scores null against every kind of value', () => {
    const prediction = { s: '', z: 0, f: false, ea: [], eo: {}, x: 'x', n: 1, t: true, fa: [1], fo: { k: 2 }, nn: null };
    const annotation = Object.fromEntries(Object.keys(prediction).map((k) => [k, null]));
    expect(flat(annotation, prediction)).toEqual({
      s: 1, z: 1, f: 1, ea: 1, eo: 1, x: 0, n: 0, t: 0, 'fa.0': 0, 'fo.k': 0, nn: 1,
    });
  });

  it('escapes ~ and . in paths and keeps the original keys in the tree', () => {
    const doc = { 'a.b': { 'c~d': 1 }, '': 2, x: { '': 3 } };
    const r = compareDocuments(doc, doc);
    expect(r.flat_similarities).toEqual({ 'a~1b.c~0d': 1, '': 1, 'x.': 1 });
    expect(r.similarities).toEqual({ 'a.b': { 'c~d': 1 }, '': 1, x: { '': 1 } });
  });

  it('keeps a "__proto__" key as an ordinary key', () => {
    const doc = JSON.parse('{"__proto__": {"x": 1}, "constructor": 2}') as JsonObject;
    const r = compareDocuments(doc, JSON.parse('{"__proto__": {"x": 0.5}}') as JsonObject);
    expect(Object.keys(r.flat_similarities).sort()).toEqual(['__proto__.x', 'constructor']);
    expect(r.flat_similarities['__proto__.x']).toBe(0.5);
    expect(Object.getPrototypeOf(r.similarities)).toBe(Object.prototype);
    expect(Object.keys(r.similarities).sort()).toEqual(['__proto__', 'constructor']);
  });

  it('writes array indices as string keys of the tree', () => {
    const r = compareDocuments({ items: [{ price: 10 }, { price: 4 }] }, { items: [{ price: 10 }, { price: 5 }] });
    expect(r.similarities).toEqual({ items: { '0': { price: 1 }, '1': { price: 0.8 } } });
    expect(r.flat_similarities).toEqual({ 'items.0.price': 1, 'items.1.price': 0.8 });
    expect(r.similarity).toBeCloseTo(0.9, 12);
  });
});

describe('compareDocuments: alignment', () => {
  it('reorders arrays of primitives', () => {
    const r = compareDocuments({ tags: ['aaa', 'bbb', 'ccc'] }, { tags: ['ccc', 'aaa', 'bbb'] });
    expect(r.similarity).toBe(0);
    expect(r.aligned_similarity).toBe(1);
    expect(r.aligned_flat_similarities).toEqual({ 'tags.0': 1, 'tags.1': 1, 'tags.2': 1 });
  });

  it('leaves an annotation item without a prediction item missing when the prediction is shorter', () => {
    const r = compareDocuments(
      { items: [{ sku: 'A' }, { sku: 'B' }, { sku: 'C' }] },
      { items: [{ sku: 'C' }, { sku: 'A' }] },
    );
    expect(r.flat_similarities).toEqual({ 'items.0.sku': 0, 'items.1.sku': 0, 'items.2.sku': 0 });
    expect(r.aligned_flat_similarities).toEqual({ 'items.0.sku': 1, 'items.1.sku': 0, 'items.2.sku': 1 });
    expect(r.aligned_similarity).toBeCloseTo(2 / 3, 12);
  });

  it('appends prediction items left over, in their original order, when the prediction is longer', () => {
    const r = compareDocuments({ items: [{ sku: 'A' }] }, { items: [{ sku: 'XX' }, { sku: 'A' }, { sku: 'YY' }] });
    expect(r.aligned_flat_similarities).toEqual({ 'items.0.sku': 1, 'items.1.sku': 0, 'items.2.sku': 0 });
    expect(r.aligned_similarities).toEqual({ items: { '0': { sku: 1 }, '1': { sku: 0 }, '2': { sku: 0 } } });
  });

  it('aligns inner arrays before weighing the outer ones', () => {
    // Hand computed: A0=[1,2] pairs best with P1=[2,1] once P1 is reordered to [1,2] (weight 1), A1=[3,4] with
    // P0=[4,3] (weight 1); unaligned, |1-4|/4 etc. give 0.25, 2/3, 2/3, 0.25.
    const r = compareDocuments({ m: [[1, 2], [3, 4]] }, { m: [[4, 3], [2, 1]] });
    expect(r.similarity).toBeCloseTo((0.25 + 2 / 3 + 2 / 3 + 0.25) / 4, 12);
    expect(r.aligned_similarity).toBe(1);
    expect(r.aligned_similarities).toEqual({ m: { '0': { '0': 1, '1': 1 }, '1': { '0': 1, '1': 1 } } });
  });

  it('aligns arrays inside objects inside arrays', () => {
    const r = compareDocuments(
      { groups: [{ name: 'g1', tags: ['a', 'b'] }, { name: 'g2', tags: ['c'] }] },
      { groups: [{ name: 'g2', tags: ['c'] }, { name: 'g1', tags: ['b', 'a'] }] },
    );
    expect(r.aligned_similarity).toBe(1);
  });

  it('never aligns when the prediction is not an array at that place', () => {
    const r = compareDocuments({ a: [1, 2] }, { a: { x: 1 } });
    expect(r.aligned_flat_similarities).toEqual(r.flat_similarities);
  });
});

describe('compareDocuments: validation', () => {
  it('refuses values that are not JSON, naming the path', () => {
    expectValidationError(() => compareDocuments({ a: { b: undefined } } as never, {}), 'annotation.a.b');
    expectValidationError(() => compareDocuments({}, { x: [1, Number.NaN] }), 'prediction.x.1');
    expectValidationError(() => compareDocuments({}, { x: Number.NEGATIVE_INFINITY }), 'prediction.x');
    expectValidationError(() => compareDocuments({ f: () => 1 } as never, {}), 'annotation.f');
    expectValidationError(() => compareDocuments({ d: new Date(0) } as never, {}), 'annotation.d');
    expectValidationError(() => compareDocuments({ h: [1, , 3] } as never, {}), 'annotation.h.1');
  });

  it('refuses cycles', () => {
    const cyclic: Record<string, unknown> = { a: {} };
    (cyclic.a as Record<string, unknown>).self = cyclic;
    expectValidationError(() => compareDocuments({}, cyclic as JsonObject), 'prediction.a.self');
  });

  it('accepts 64 levels and refuses 65', () => {
    expect(compareDocuments(nested(64) as JsonObject, nested(64) as JsonObject).similarity).toBe(1);
    const error = expectValidationError(() => compareDocuments(nested(65) as JsonObject, {}), `annotation${'.a'.repeat(64)}`);
    expect(error.message).toMatch(/64/);
  });

  it('refuses 100,000 levels without exhausting the stack', () => {
    const deep = nested(100_000);
    const error = expectValidationError(() => compareDocuments({}, deep as JsonObject), `prediction${'.a'.repeat(64)}`);
    expect(error.code).toBe('validation_error');
  });

  it('requires objects at the top', () => {
    expectValidationError(() => compareDocuments([] as never, {}), 'annotation');
    expectValidationError(() => compareDocuments({}, 'x' as never), 'prediction');
    expectValidationError(() => compareDocuments({}, null as never), 'prediction');
  });
});
