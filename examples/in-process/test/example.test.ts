import { expect, it } from 'vitest';
import { runExample } from '../src/example.js';

it('runs the in-process example: metrics follow the fixed annotation', async () => {
  const lines: string[] = [];
  const { before, after } = await runExample((l) => lines.push(l));
  // "g77" vs "g71": one substitution in three characters for one of three fields of the second document.
  expect(before.item_metrics[0]!.similarity).toBe(1);
  expect(before.item_metrics[1]!.similarity).toBeCloseTo((1 - 1 / 3 + 1 + 1) / 3, 12);
  expect(after.mean_similarity).toBe(1);
  expect(lines.at(-1)).toContain('1.0000');
});
