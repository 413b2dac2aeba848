import { describe, expect, it } from 'vitest';
import { assertJson, findJsonProblem } from '../../src/json/assert-json.js';

// The walk keeps one frame per value linked to its container's (paths and ancestors are read up that chain only
// when a problem is found): these pin the paths and the cycle rule it must keep.
describe('findJsonProblem', () => {
  it('accepts JSON, including one object reached twice without a cycle', () => {
    const shared = { a: [1, 'x', null, true] };
    expect(findJsonProblem({ left: shared, right: shared, list: [shared, shared] })).toBeNull();
    expect(findJsonProblem([])).toBeNull();
    expect(findJsonProblem('text')).toBeNull();
  });

  it('names the full path of a bad leaf, the first one in document order', () => {
    expect(findJsonProblem({ a: { b: [1, 2, { c: Number.NaN }] }, z: Number.POSITIVE_INFINITY })).toEqual({
      path: ['a', 'b', '2', 'c'],
      message: 'NaN is not a JSON number',
    });
    expect(findJsonProblem({ items: [{ ok: 1 }, { f: () => 1 }] })).toEqual({
      path: ['items', '1', 'f'],
      message: 'a function is not a JSON value',
    });
    expect(findJsonProblem({ when: new Date(0) })).toEqual({ path: ['when'], message: 'an instance of Date is not a JSON value' });
    expect(findJsonProblem(undefined)).toEqual({ path: [], message: 'undefined is not a JSON value' });
  });

  it('refuses a cycle where it closes, and an array hole with its index', () => {
    const loop: Record<string, unknown> = { name: 'x' };
    loop.inner = { items: [loop] };
    expect(findJsonProblem({ root: loop })).toEqual({ path: ['root', 'inner', 'items', '0'], message: 'the value contains a cycle' });
    expect(findJsonProblem({ list: [1, , 3] })).toEqual({ path: ['list', '1'], message: 'an array hole (undefined) is not a JSON value' });
  });

  it('counts depth in containers and names the container past the limit', () => {
    expect(findJsonProblem({ a: { b: {} } }, 3)).toBeNull();
    expect(findJsonProblem({ a: { b: { c: {} } } }, 3)).toEqual({
      path: ['a', 'b', 'c'],
      message: 'JSON nests deeper than 3 levels; flatten the value',
    });
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findJsonProblem(deep)?.path).toHaveLength(64);
  });

  it('assertJson prefixes the path it is given', () => {
    expect(() => assertJson({ a: [Number.NaN] }, 'annotation')).toThrow(
      expect.objectContaining({ code: 'validation_error', issues: [{ path: 'annotation.a.0', message: 'NaN is not a JSON number' }] }),
    );
  });
});
