import { validationError } from '../errors.js';

/** The deepest nesting any JSON value may have (docs/spec/metrics.md: 64 levels). */
export const MAX_JSON_DEPTH = 64;

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return 'a bigint';
  if (typeof value === 'symbol') return 'a symbol';
  return `an instance of ${(value as object).constructor?.name ?? 'an unknown class'}`;
}

/**
 * Throws a `validation_error` naming the path unless `value` is a JSON value nested at most `maxDepth` levels
 * (an object or array is one level; `{"a": [1]}` is two). Iterative, so a value nested 100,000 levels deep is
 * refused without exhausting the stack; cycles are refused too.
 *
 * @example
 * assertJson(body.annotation, 'annotation'); // throws on NaN, undefined, functions, cycles, depth > 64
 */
export function assertJson(value: unknown, path = '', maxDepth = MAX_JSON_DEPTH): asserts value is JsonValue {
  const problem = findJsonProblem(value, maxDepth);
  if (problem) {
    const full = [path, ...problem.path].filter((s) => s !== '').join('.');
    throw validationError(`${full === '' ? 'The value' : `"${full}"`}: ${problem.message}.`, [
      { path: full, message: problem.message },
    ]);
  }
}

/** Whether `value` is a JSON value within `maxDepth` levels: {@link assertJson} as a type guard. */
export function isJsonValue(value: unknown, maxDepth = MAX_JSON_DEPTH): value is JsonValue {
  return findJsonProblem(value, maxDepth) === null;
}

/** A value met by {@link findJsonProblem}: its key in its container, the container's frame, containers above it. */
interface JsonFrame {
  value: unknown;
  depth: number;
  key: string;
  parent: JsonFrame | null;
}

/** The path of a frame, built only when there is a problem to report (so the walk allocates one frame per value). */
function pathOf(frame: JsonFrame): string[] {
  const path: string[] = [];
  for (let f: JsonFrame | null = frame; f?.parent; f = f.parent) path.push(f.key);
  return path.reverse();
}

/** The first reason `value` is not a JSON value within `maxDepth` levels, with its path; null when it is. */
export function findJsonProblem(
  value: unknown,
  maxDepth = MAX_JSON_DEPTH,
): { path: string[]; message: string } | null {
  // Iterative (no recursion to overflow). Each frame links to its container's frame: the path and the ancestors
  // (for cycles) are read up that chain, at most maxDepth long, instead of being copied into every frame.
  const stack: JsonFrame[] = [{ value, depth: 0, key: '', parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return invalid(pathOf(frame), `${describe(v)} is not a JSON number`);
      continue;
    }
    if (typeof v !== 'object') return invalid(pathOf(frame), `${describe(v)} is not a JSON value`);
    if (!Array.isArray(v) && !isPlainObject(v)) return invalid(pathOf(frame), `${describe(v)} is not a JSON value`);
    for (let above = frame.parent; above; above = above.parent) {
      if (above.value === v) return invalid(pathOf(frame), 'the value contains a cycle');
    }
    const depth = frame.depth + 1;
    if (depth > maxDepth) {
      return invalid(pathOf(frame), `JSON nests deeper than ${maxDepth} levels; flatten the value`);
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        if (!(i in v)) return invalid([...pathOf(frame), String(i)], 'an array hole (undefined) is not a JSON value');
        stack.push({ value: v[i], depth, key: String(i), parent: frame });
      }
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push({ value: (v as Record<string, unknown>)[key], depth, key, parent: frame });
      }
    }
  }
  return null;
}

/** Depth of a JSON value as counted by {@link assertJson}, iteratively; stops counting past `limit`. */
export function jsonDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth]);
  }
  return max;
}

function invalid(path: string[], message: string) {
  return { path, message };
}
