import { describe, expect, it } from 'vitest';
import { findForbiddenKey } from '../../src/json/json-body-limits.js';

describe('findForbiddenKey', () => {
  const body = (annotation: (i: number) => unknown) => ({
    documents: Array.from({ length: 1_000 }, (_, i) => ({ annotation: annotation(i), mime_data: { filename: `${i}.json` } })),
  });

  it('finds nothing in a large body without the key, and the path of the one it holds', () => {
    expect(findForbiddenKey(body((i) => ({ total: i, lines: [`line ${i}`, { n: i }] })))).toBeNull();
    const parsed = JSON.parse(JSON.stringify(body((i) => ({ total: i }))).replace('{"total":699}', '{"total":699,"__proto__":{"x":1}}'));
    expect(findForbiddenKey(parsed)).toEqual(['documents', '699', 'annotation', '__proto__']);
  });

  it('ends on shared and circular values, and finds a key in a value shared by two places once', () => {
    const shared = JSON.parse('{"deep":{"__proto__":1}}');
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(findForbiddenKey({ first: cycle, second: [cycle, cycle] })).toBeNull();
    expect(findForbiddenKey({ a: [shared], b: shared })).toEqual(['b', 'deep', '__proto__']);
  });
});
