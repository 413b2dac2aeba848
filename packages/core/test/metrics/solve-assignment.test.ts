import { describe, expect, it } from 'vitest';
import { solveAssignment } from '../../src/index.js';
import { AssignmentSolver } from '../../src/metrics/solve-assignment.js';
import { expectValidationError } from './expect-validation-error.js';

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Best total over every way of choosing min(n, m) cells, one per row and column. */
function bruteForce(w: number[][]): number {
  const n = w.length;
  const m = n === 0 ? 0 : w[0]!.length;
  const k = Math.min(n, m);
  let best = -Infinity;
  const usedCols = new Array<boolean>(m).fill(false);
  const go = (row: number, chosen: number, total: number) => {
    if (chosen === k) return void (best = Math.max(best, total));
    if (n - row < k - chosen) return;
    go(row + 1, chosen, total); // row left out (only possible when n > m)
    for (let c = 0; c < m; c++) {
      if (usedCols[c]) continue;
      usedCols[c] = true;
      go(row + 1, chosen + 1, total + w[row]![c]!);
      usedCols[c] = false;
    }
  };
  go(0, 0, 0);
  return k === 0 ? 0 : best;
}

function checkValid(w: number[][], columns: number[]): number {
  const m = w[0]?.length ?? 0;
  expect(columns).toHaveLength(w.length);
  const used = columns.filter((c) => c >= 0);
  expect(new Set(used).size).toBe(used.length);
  expect(used.length).toBe(Math.min(w.length, m));
  return columns.reduce((sum, c, r) => (c >= 0 ? sum + w[r]![c]! : sum), 0);
}

describe('solveAssignment', () => {
  it('solves small cases', () => {
    expect(solveAssignment([[1, 5], [4, 1]])).toEqual([1, 0]);
    expect(solveAssignment([[0.2], [0.9], [0.1]])).toEqual([-1, 0, -1]);
    expect(solveAssignment([[1, 2, 3]])).toEqual([2]);
    expect(solveAssignment([])).toEqual([]);
    expect(solveAssignment([[], []])).toEqual([-1, -1]);
    // Greedy would take the 10 and then 1; the optimum is 9 + 9.
    expect(solveAssignment([[10, 9], [9, 1]])).toEqual([1, 0]);
  });

  it('matches brute force on random rectangular matrices (seeded)', () => {
    const next = rng(20261123);
    for (let trial = 0; trial < 400; trial++) {
      const n = 1 + Math.floor(next() * 6);
      const m = 1 + Math.floor(next() * 6);
      // Half of the matrices use few distinct values, so that ties are common.
      const coarse = next() < 0.5;
      const w = Array.from({ length: n }, () => Array.from({ length: m }, () => (coarse ? Math.floor(next() * 3) : next() * 2 - 0.5)));
      const total = checkValid(w, solveAssignment(w));
      expect(total, JSON.stringify(w)).toBeCloseTo(bruteForce(w), 9);
    }
  });

  it('repairs a solution after chosen weights decrease, as if solved again', () => {
    const next = rng(42);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(next() * 6);
      const m = 1 + Math.floor(next() * 6);
      const flat = Float64Array.from({ length: n * m }, () => next());
      const solver = new AssignmentSolver(flat, n, m);
      const lowered: Array<[number, number]> = [];
      solver.columnOf().forEach((c, r) => {
        if (c >= 0 && next() < 0.6) {
          flat[r * m + c] = flat[r * m + c]! * next();
          solver.setWeight(r, c, flat[r * m + c]!);
          lowered.push([r, c]);
        }
      });
      solver.repair(lowered);
      const w = Array.from({ length: n }, (_, r) => Array.from(flat.subarray(r * m, r * m + m)));
      const total = checkValid(w, Array.from(solver.columnOf()));
      expect(total).toBeCloseTo(bruteForce(w), 9);
    }
  });

  it('solves a 300 x 300 matrix quickly (no factorial search)', () => {
    const next = rng(1);
    const w = Array.from({ length: 300 }, () => Array.from({ length: 300 }, () => next()));
    const start = performance.now();
    checkValid(w, solveAssignment(w));
    expect(performance.now() - start).toBeLessThan(5000);
  });

  it('refuses matrices that are not rectangular or not finite', () => {
    expectValidationError(() => solveAssignment([[1, 2], [3]]), 'weights.1');
    expectValidationError(() => solveAssignment([[1, Number.NaN]]), 'weights.0.1');
    expectValidationError(() => solveAssignment([[Number.POSITIVE_INFINITY]]), 'weights.0.0');
    expectValidationError(() => solveAssignment('x' as never), 'weights');
  });
});
