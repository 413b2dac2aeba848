import { validationError } from '../errors.js';

/**
 * Maximum-weight assignment of a `rows` x `cols` matrix (row-major `weights`): min(rows, cols) pairs, each row and
 * column used at most once. Hungarian algorithm with potentials (shortest augmenting paths, O(k^2 * l) for k the
 * smaller and l the larger dimension); never greedy, never enumerating.
 *
 * Kept as an object so a solution can be repaired after weights of chosen cells decrease (alignment starts from
 * upper bounds and lowers them). Lowering a weight keeps the potentials feasible, so only the rows that lost their
 * cell need a new augmenting path; that is optimal again only when every column ends up matched (a free column must
 * keep a zero potential). So a matrix whose sides are within a factor of two is padded to a square with zero-weight
 * rows or columns, which changes no optimum (every choice gets the same 0 from them) and makes repairs exact; a
 * more lopsided one is solved again from scratch instead.
 */
export class AssignmentSolver {
  private readonly transpose: boolean;
  private readonly square: boolean;
  /** Solver rows (1-based inside) never outnumber solver columns; costs are negated weights. */
  private readonly n: number;
  private readonly m: number;
  private readonly cost: Float64Array;
  private readonly u: Float64Array;
  private readonly v: Float64Array;
  /** owner[j]: the solver row (1-based) holding column j, 0 when free. */
  private readonly owner: Int32Array;
  private readonly way: Int32Array;
  private readonly minv: Float64Array;
  private readonly used: Uint8Array;

  constructor(
    weights: Float64Array,
    private readonly rows: number,
    private readonly cols: number,
  ) {
    const small = Math.min(rows, cols);
    const large = Math.max(rows, cols);
    this.square = small * 2 >= large;
    this.transpose = !this.square && rows > cols;
    this.n = this.square ? large : small;
    this.m = large;
    this.cost = new Float64Array(this.n * this.m); // padding cells stay 0
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) this.setWeight(r, c, weights[r * cols + c]!);
    this.u = new Float64Array(this.n + 1);
    this.v = new Float64Array(this.m + 1);
    this.owner = new Int32Array(this.m + 1);
    this.way = new Int32Array(this.m + 1);
    this.minv = new Float64Array(this.m + 1);
    this.used = new Uint8Array(this.m + 1);
    this.solveAll();
  }

  /** Changes one weight. Only a decrease keeps the solution repairable with {@link repair}. */
  setWeight(row: number, col: number, weight: number): void {
    if (this.transpose) this.cost[col * this.m + row] = -weight;
    else this.cost[row * this.m + col] = -weight;
  }

  /** After the weights of the given chosen cells decreased: makes the solution optimal again. */
  repair(cells: Array<[row: number, col: number]>): void {
    if (!this.square) return this.solveAll();
    const rows: number[] = [];
    for (const [row, col] of cells) {
      if (this.owner[col + 1] === row + 1) {
        this.owner[col + 1] = 0;
        rows.push(row + 1);
      }
    }
    for (const i of rows) this.augment(i);
  }

  /** For each row of the original matrix, its column or -1. */
  columnOf(): Int32Array {
    const result = new Int32Array(this.rows).fill(-1);
    for (let j = 1; j <= this.m; j++) {
      const i = this.owner[j]!;
      if (i === 0) continue;
      const row = this.transpose ? j - 1 : i - 1;
      const col = this.transpose ? i - 1 : j - 1;
      if (row < this.rows && col < this.cols) result[row] = col; // padding pairs are no pairs
    }
    return result;
  }

  private solveAll(): void {
    this.u.fill(0);
    this.v.fill(0);
    this.owner.fill(0);
    for (let i = 1; i <= this.n; i++) this.augment(i);
  }

  /** Adds solver row i (1-based) to the matching along a shortest augmenting path (Dijkstra on reduced costs). */
  private augment(i: number): void {
    const { m, cost, u, v, owner, way, minv, used } = this;
    owner[0] = i;
    let j0 = 0;
    minv.fill(Infinity);
    used.fill(0);
    do {
      used[j0] = 1;
      const i0 = owner[j0]!;
      const rowBase = (i0 - 1) * m - 1;
      const ui0 = u[i0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const reduced = cost[rowBase + j]! - ui0 - v[j]!;
        if (reduced < minv[j]!) {
          minv[j] = reduced;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          u[owner[j]!] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (owner[j0] !== 0);
    do {
      const j1 = way[j0]!;
      owner[j0] = owner[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
}

/** {@link AssignmentSolver} in one call: for each row, its column or -1. */
export function solveAssignmentFlat(weights: Float64Array, rows: number, cols: number): Int32Array {
  if (rows === 0 || cols === 0) return new Int32Array(rows).fill(-1);
  return new AssignmentSolver(weights, rows, cols).columnOf();
}

/**
 * Maximum-weight rectangular assignment: chooses min(rows, columns) cells, at most one per row and per column,
 * with the largest total weight. Returns, for each row, the chosen column or -1 (more rows than columns).
 * Throws `validation_error` unless `weights` is a rectangular matrix of finite numbers.
 *
 * @example
 * solveAssignment([[1, 5], [4, 1]]);      // [1, 0]
 * solveAssignment([[0.2], [0.9], [0.1]]); // [-1, 0, -1]
 */
export function solveAssignment(weights: number[][]): number[] {
  if (!Array.isArray(weights)) {
    throw validationError('weights: a matrix (an array of rows) is required.', [{ path: 'weights', message: 'not an array' }]);
  }
  const rows = weights.length;
  const cols = rows === 0 ? 0 : Array.isArray(weights[0]) ? weights[0].length : 0;
  const flat = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const row = weights[r];
    if (!Array.isArray(row) || row.length !== cols) {
      throw validationError(`weights.${r}: every row must be an array of ${cols} numbers.`, [
        { path: `weights.${r}`, message: `expected an array of ${cols} numbers` },
      ]);
    }
    for (let c = 0; c < cols; c++) {
      const w = row[c];
      if (typeof w !== 'number' || !Number.isFinite(w)) {
        throw validationError(`weights.${r}.${c}: a finite number is required.`, [
          { path: `weights.${r}.${c}`, message: 'not a finite number' },
        ]);
      }
      flat[r * cols + c] = w;
    }
  }
  return Array.from(solveAssignmentFlat(flat, rows, cols));
}
