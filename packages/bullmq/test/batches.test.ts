/** How a plan cuts a job's documents into queue jobs (docs/workers.md, Batches). */
import { describe, expect, it } from 'vitest';
import { batchCount, batchesOf } from '../src/worker.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `d${i}`);
const sizes = (batches: Map<number, string[]>) => [...batches.values()].map((b) => b.length);

describe('batches', () => {
  it('the acceptance case: 300 documents, 8 slots, at most 4 a batch -> 80 batches of 3 or 4, 10 per slot', () => {
    const count = batchCount(300, 8, 4);
    expect(count).toBe(80);
    const batches = batchesOf(ids(300), ids(300).map((_, i) => i), 300, count);
    expect(batches.size).toBe(80);
    expect(Math.max(...sizes(batches)) - Math.min(...sizes(batches))).toBeLessThanOrEqual(1);
    expect(Math.max(...sizes(batches))).toBeLessThanOrEqual(4);
    // Every document once, in the evaluation's order.
    expect([...batches.values()].flat()).toEqual(ids(300));
  });

  it('small iterations and many slots: one document a job, so every slot has work', () => {
    expect(batchCount(20, 8, 4)).toBe(20);
    expect(batchCount(100, 32, 4)).toBe(100);
    expect(batchCount(1, 8, 4)).toBe(1);
    expect(batchCount(0, 8, 4)).toBe(0);
  });

  it('maxBatch 1: always one job per document; never larger than maxBatch', () => {
    expect(batchCount(300, 8, 1)).toBe(300);
    for (const [n, slots, max] of [[10_000, 8, 4], [10_000, 64, 8], [333, 3, 2], [5_000, 1, 4]] as const) {
      const count = batchCount(n, slots, max);
      const batches = batchesOf(ids(n), ids(n).map((_, i) => i), n, count);
      expect(Math.max(...sizes(batches))).toBeLessThanOrEqual(max);
      expect(count % slots === 0 || count === n).toBe(true);
    }
  });

  it('a plan run again (fewer documents pending) puts each document in the batch it had', () => {
    const all = ids(50);
    const count = batchCount(50, 4, 4);
    const first = batchesOf(all, all.map((_, i) => i), 50, count);
    const batchOf = new Map([...first].flatMap(([batch, list]) => list.map((id) => [id, batch] as const)));
    const pending = all.filter((_, i) => i % 3 !== 0);
    const again = batchesOf(pending, pending.map((id) => all.indexOf(id)), 50, count);
    for (const [batch, list] of again) for (const id of list) expect(batchOf.get(id)).toBe(batch);
  });
});
