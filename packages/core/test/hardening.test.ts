/** Issue 13, the core's side: bounded work, isolated schema compiles, clean errors. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  assertJsonContainersWithin,
  compareDocuments,
  compileJsonSchema,
  DocevalsError,
  invalidRequest,
  leafSimilarity,
  LIMITS,
  storageError,
} from '../src/internal.js';

function nested(depth: number, width: number, seed: number): unknown {
  if (depth === 0) return `value ${seed}`;
  return Array.from({ length: width }, (_, i) => nested(depth - 1, width, seed * width + i));
}

describe('alignment work budget (H3)', () => {
  it('falls back to positional figures past the budget and says so on the item', () => {
    const result = compareDocuments({ rows: nested(4, 10, 1) } as never, { rows: nested(4, 10, 2) } as never);
    expect(result.alignment).toBe('positional_fallback');
    expect(result.aligned_similarity).toBe(result.similarity);
    expect(result.aligned_flat_similarities).toEqual(result.flat_similarities);
    expect(result.aligned_similarities).not.toBe(result.similarities);
  });

  it('refuses an n x m matrix past the budget before allocating it', () => {
    const items = Array.from({ length: 2_000 }, (_, i) => i);
    const result = compareDocuments({ items } as never, { items: [...items].reverse() } as never);
    expect(result.alignment).toBe('positional_fallback');
  });

  it('aligns within the budget without the field', () => {
    const result = compareDocuments({ items: ['a', 'b', 'c'] } as never, { items: ['c', 'b', 'a'] } as never);
    expect(result.aligned_similarity).toBe(1);
    expect(result).not.toHaveProperty('alignment');
  });
});

/** `length` characters of a string that a few edits turn into its `twin`. */
function longText(length: number, twin = false): string {
  return (twin ? 'ba' : 'ab').repeat(length / 2);
}

describe('Levenshtein work budget (issue 13)', () => {
  it('scores two 200,000-character leaves by equality, fast, and says so', () => {
    const started = performance.now();
    const result = compareDocuments(
      { note: longText(200_000), same: longText(200_000), short: 'ACME Corp' },
      { note: longText(200_000, true), same: `${longText(200_000)}!`, short: 'acme corp.' },
    );
    // 4e10 pairs would take several seconds; refused before any is computed.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result.levenshtein).toBe('equality_fallback');
    expect(result.flat_similarities).toEqual({ note: 0, same: 1, short: 1 });
    expect(result.aligned_flat_similarities).toEqual({ note: 0, same: 1, short: 1 });
  });

  it('computes distances until the budget is spent, then scores the rest by equality', () => {
    const perLeaf = 10_000 * Math.ceil(10_000 / 32) * 32; // the shorter side in whole 32-character words
    const computed = Math.floor(LIMITS.maxTextWork / perLeaf);
    const keys = Array.from({ length: computed + 3 }, (_, i) => `k${i}`);
    const annotation = Object.fromEntries(keys.map((k) => [k, longText(10_000)]));
    const prediction = Object.fromEntries(keys.map((k) => [k, longText(10_000, true)]));
    const result = compareDocuments(annotation as never, prediction as never);
    expect(result.levenshtein).toBe('equality_fallback');
    const exact = leafSimilarity(longText(10_000), longText(10_000, true)); // 2 edits in 10,000
    expect(exact).toBeCloseTo(0.9998, 10);
    expect(keys.map((k) => result.flat_similarities[k])).toEqual(keys.map((_, i) => (i < computed ? exact : 0)));
  });

  it('leaves a document under the budget unchanged, without the field', () => {
    const annotation = { note: longText(2_000), items: ['Café', 'b'] };
    const prediction = { note: longText(2_000, true), items: ['b', 'CAFE'] };
    const result = compareDocuments(annotation as never, prediction as never);
    expect(result).not.toHaveProperty('levenshtein');
    expect(result.flat_similarities.note).toBe(leafSimilarity(longText(2_000), longText(2_000, true)));
    expect(result.flat_similarities.note).toBe(0.999);
    expect(result.aligned_similarity).toBeCloseTo((0.999 + 1 + 1) / 3, 12); // note and both items, aligned
  });
});

describe('JSON Schema compiles (H2, M3, L4)', () => {
  it('runs a catastrophic pattern in linear time', () => {
    const validate = compileJsonSchema({ type: 'string', pattern: '^(a+)+$' });
    const started = performance.now();
    expect(validate(`${'a'.repeat(5_000)}!`)).toBe(false);
    expect(validate('aaaa')).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses lookaround and backreferences at compile time as a validation_error', () => {
    for (const pattern of ['(?=a)b', '(a)\\1', '(?<!a)b']) {
      expect(() => compileJsonSchema({ type: 'string', pattern }, 'json_schema')).toThrow(
        expect.objectContaining({ code: 'validation_error', issues: [expect.objectContaining({ path: 'json_schema' })] }),
      );
    }
  });

  it('keeps a nested $id to the compile that declared it', () => {
    compileJsonSchema({ $defs: { s: { $id: 'https://x.example/one.json', type: 'string' } } });
    expect(() => compileJsonSchema({ $ref: 'https://x.example/one.json' })).toThrow(DocevalsError);
  });

  it('validates properties named toString and constructor as own properties only', () => {
    const validate = compileJsonSchema({
      type: 'object',
      properties: { toString: { type: 'string' }, constructor: { type: 'number' } },
      required: ['toString'],
    });
    expect(validate({})).toBe(false);
    expect(validate({ toString: 'x' })).toBe(true);
    expect(validate({ toString: 'x', constructor: 1 })).toBe(true);
    expect(validate({ toString: 'x', constructor: 'y' })).toBe(false);
  });

  it('keeps the heap flat over 1,000 compiles of distinct schemas with nested $ids', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const compileMany = (from: number) => {
      for (let i = from; i < from + 500; i++) {
        compileJsonSchema({
          type: 'object',
          $defs: { item: { $id: `https://x.example/${i}/item.json`, type: 'string', pattern: `^v${i}[a-z]+$` } },
          properties: { a: { $ref: `https://x.example/${i}/item.json` } },
        });
      }
    };
    compileMany(0); // fills the validator cache (256 entries) and warms up
    gc();
    const before = process.memoryUsage().heapUsed;
    compileMany(1_000);
    compileMany(2_000);
    gc();
    const growth = process.memoryUsage().heapUsed - before;
    expect(growth).toBeLessThan(20 * 1024 * 1024);
  }, 60_000);
});

describe('request bounds (H1)', () => {
  it('counts JSON containers without parsing, skipping strings', () => {
    expect(() => assertJsonContainersWithin('{"a":"[[[[{{{{"}', 1)).not.toThrow();
    expect(() => assertJsonContainersWithin('{"a":"\\"[[[["}', 1)).not.toThrow();
    expect(() => assertJsonContainersWithin('{"a":[{}]}', 2)).toThrow(expect.objectContaining({ code: 'payload_too_large' }));
    const started = performance.now();
    expect(() => assertJsonContainersWithin(`[${'{},'.repeat(5_000_000)}{}]`)).toThrow(DocevalsError);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('caps the issues of a validation error and counts the rest', () => {
    const issues = Array.from({ length: 250 }, (_, i) => ({ path: `documents.${i}`, message: 'bad' }));
    const error = invalidRequest(issues);
    expect(error.issues).toHaveLength(LIMITS.maxIssues + 1);
    expect(error.issues!.at(-1)).toEqual({ path: '', message: '150 more issues not listed; fix these first' });
    expect(error.message).toContain('(and 247 more)');
  });
});

describe('storage errors (L1)', () => {
  it('keeps the cause for the host, and never puts it in the message clients get', () => {
    const cause = new Error("ENOENT: no such file or directory, open '/srv/data/files/org_a/file_1'");
    const error = storageError('lowdb', 'files.get', cause);
    expect(error.message).toContain('/srv/data/files/org_a/file_1');
    expect(error.cause).toBe(cause);
    expect(error.publicMessage).toBe('The lowdb storage failed during files.get; the server logged the cause.');
    expect(error.toJSON().error.message).toBe(error.publicMessage);
    expect(storageError('lowdb', 'open of "/srv/data"', cause).publicMessage).not.toContain('/srv');
  });

  it('sends a generic message for a storage_error built elsewhere', () => {
    const error = new DocevalsError('storage_error', 'The lowdb storage of "/srv/data" was closed.');
    expect(error.publicMessage).not.toContain('/srv');
    expect(JSON.stringify(error.toJSON())).not.toContain('/srv');
    expect(new DocevalsError('not_found', 'No evaluation "x".').publicMessage).toBe('No evaluation "x".');
  });
});
