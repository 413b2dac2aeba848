import { describe, expect, it } from 'vitest';
import { jsonBody, jsonPieces } from '../src/json-stream.js';

const joined = (value: unknown) => [...jsonPieces(value)].join('');

describe('the JSON stream of large answers', () => {
  it('writes what JSON.stringify writes, piece by piece', () => {
    const values: unknown[] = [
      { a: [1, 'x', null, undefined, () => 1], b: undefined, c: { d: { e: { f: [1, { g: 2 }] } } }, when: new Date(0) },
      [],
      {},
      'text "quoted"',
      42,
      null,
      [[[[['deep']]]]],
      { n: Number.NaN, inf: Number.POSITIVE_INFINITY },
      // Leaves written with their separator at every level: first, middle and last members, skipped ones between.
      { list: [undefined, { t: new Date(1) }, [1, [2, [3, [4, [5]]]]], 's', Symbol('x')], o: { a: { b: { c: { d: { e: 1 } } } }, z: Symbol('y'), f: () => 1, last: 'x' } },
      [1, { a: [{ b: 1 }, 2] }, 'x', [[{}], []]],
    ];
    for (const value of values) expect(joined(value)).toBe(JSON.stringify(value));
  });

  it('keeps a small answer as one string and streams a large one in chunks that join to the same text', async () => {
    expect(jsonBody({ ok: true })).toBe('{"ok":true}');
    const large = { data: Array.from({ length: 3_000 }, (_, i) => ({ id: `doc_${i}`, text: 'y'.repeat(100) })) };
    const body = jsonBody(large);
    expect(body).toBeInstanceOf(ReadableStream);
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) chunks.push(decoder.decode(chunk, { stream: true }));
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeLessThan(80 * 1024);
    expect(chunks.join('')).toBe(JSON.stringify(large));
  });

  it("streams a create's answer prediction by prediction: no chunk holds an iteration's whole predictions array", async () => {
    const predictions = Array.from({ length: 3_000 }, (_, i) => ({ document_id: `doc_${i}`, prediction: { text: 'y'.repeat(100) } }));
    const answer = { id: 'eval_1', iterations: [{ id: 'iter_1', predictions }] };
    const decoder = new TextDecoder();
    const chunks: string[] = [];
    for await (const chunk of jsonBody(answer) as unknown as AsyncIterable<Uint8Array>) chunks.push(decoder.decode(chunk, { stream: true }));
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(80 * 1024);
    expect(chunks.join('')).toBe(JSON.stringify(answer));
  });
});
