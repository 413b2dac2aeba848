/**
 * A JSON value prepared once for many comparisons: kinds resolved, strings normalized, keys listed, and the
 * figures case 4 of docs/spec/metrics.md section 3 needs (leaf count, how many leaves score 1 against null) precomputed.
 * Aligning a 60-item list compares 3,600 pairs of items; preparing each item once instead of per pair is where most
 * of the speed comes from.
 */
import { validationError } from '../errors.js';
import { assertJson, MAX_JSON_DEPTH, type JsonValue } from '../json/assert-json.js';
import { TextWork, type PreparedText, type TextContext } from './normalize-text.js';

export const NULL = 0;
export const BOOL = 1;
export const NUM = 2;
export const STR = 3;
export const EMPTY_ARRAY = 4;
export const EMPTY_OBJECT = 5;
export const ARRAY = 6;
export const OBJECT = 7;

// Never compared (only strings are); its own unlimited budget keeps it apart from every context's.
const NO_TEXT: PreparedText = {
  normalized: '',
  units: '',
  codePoints: null,
  signatureLow: 0,
  signatureHigh: 0,
  signatureBits: 0,
  work: new TextWork(Number.POSITIVE_INFINITY),
};
const NO_KEYS: string[] = [];
const NO_CHILDREN: ValueNode[] = [];
/** Objects with more keys than this get a key index; below it a scan is faster than a Map. */
const INDEX_THRESHOLD = 8;

export class ValueNode {
  private index: Map<string, number> | null = null;

  constructor(
    readonly kind: number,
    /** The JSON this node stands for, or undefined for a container rebuilt by alignment. */
    readonly value: JsonValue | undefined,
    readonly num: number,
    readonly text: PreparedText,
    /** Scores 1 against null: `""`, `0`, `false`, `[]`, `{}` (and null itself). */
    readonly empty: boolean,
    readonly keys: string[],
    readonly children: ValueNode[],
    /** Some non-empty array lies at or under this node: alignment can skip subtrees without one. */
    readonly hasArrays: boolean,
    /** Number of leaves under this node (1 for a leaf). */
    readonly leafCount: number,
    /** Sum of `leafSimilarity(leaf, null)` over those leaves. */
    readonly nullScore: number,
  ) {}

  /** Position of `key` among this object's keys, -1 when absent. */
  indexOf(key: string): number {
    const keys = this.keys;
    if (keys.length <= INDEX_THRESHOLD) {
      for (let i = 0; i < keys.length; i++) if (keys[i] === key) return i;
      return -1;
    }
    let index = this.index;
    if (index === null) {
      index = new Map();
      for (let i = 0; i < keys.length; i++) index.set(keys[i]!, i);
      this.index = index;
    }
    return index.get(key) ?? -1;
  }
}

/** Null, and also what stands at a place where a side has nothing: section 3 scores both alike. */
export const MISSING = new ValueNode(NULL, null, 0, NO_TEXT, true, NO_KEYS, NO_CHILDREN, false, 1, 1);
const TRUE = new ValueNode(BOOL, true, 1, NO_TEXT, false, NO_KEYS, NO_CHILDREN, false, 1, 0);
const FALSE = new ValueNode(BOOL, false, 0, NO_TEXT, true, NO_KEYS, NO_CHILDREN, false, 1, 1);

/** Thrown inside {@link prepareValue} on anything that is not JSON; turned into the real error by the caller. */
class NotJson extends Error {}

/**
 * Prepares a JSON value for comparison, checking it on the way: a value that is not JSON, or nests deeper than
 * {@link MAX_JSON_DEPTH} levels (cycles included: they nest forever), is handed to `assertJson`, which throws the
 * `validation_error` naming the path. The recursion stops at the depth limit, so even a value nested 100,000
 * levels deep cannot exhaust the stack; valid values pay for one walk instead of a check and a preparation.
 */
export function prepareChecked(value: unknown, texts: TextContext, path: string): ValueNode {
  try {
    return prepareValue(value, texts, 0);
  } catch (error) {
    if (!(error instanceof NotJson)) throw error;
    assertJson(value, path);
    throw validationError(`"${path}": not a JSON value.`, [{ path, message: 'not a JSON value' }]);
  }
}

/** Prepares a value; `depth` counts the containers above it. Throws {@link NotJson} on what is not JSON. */
export function prepareValue(value: unknown, texts: TextContext, depth = 0): ValueNode {
  if (value === null) return MISSING;
  switch (typeof value) {
    case 'boolean':
      return value ? TRUE : FALSE;
    case 'number':
      if (!Number.isFinite(value)) throw new NotJson();
      return new ValueNode(NUM, value, value, NO_TEXT, value === 0, NO_KEYS, NO_CHILDREN, false, 1, value === 0 ? 1 : 0);
    case 'string':
      return new ValueNode(STR, value, 0, texts.prepare(value), value === '', NO_KEYS, NO_CHILDREN, false, 1, value === '' ? 1 : 0);
    case 'object':
      break;
    default:
      throw new NotJson();
  }
  if (depth >= MAX_JSON_DEPTH) throw new NotJson();
  if (Array.isArray(value)) {
    if (value.length === 0) return new ValueNode(EMPTY_ARRAY, value, 0, NO_TEXT, true, NO_KEYS, NO_CHILDREN, false, 1, 1);
    const children = new Array<ValueNode>(value.length);
    for (let i = 0; i < value.length; i++) {
      if (value[i] === undefined) throw new NotJson(); // holes too
      children[i] = prepareValue(value[i], texts, depth + 1);
    }
    return containerNode(ARRAY, value, NO_KEYS, children);
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw new NotJson();
  const record = value as Record<string, unknown>;
  const keys = texts.sharedKeys(Object.keys(record));
  if (keys.length === 0) return new ValueNode(EMPTY_OBJECT, value as JsonValue, 0, NO_TEXT, true, NO_KEYS, NO_CHILDREN, false, 1, 1);
  const children = new Array<ValueNode>(keys.length);
  for (let i = 0; i < keys.length; i++) children[i] = prepareValue(record[keys[i]!], texts, depth + 1);
  return containerNode(OBJECT, value as JsonValue, keys, children);
}

/** A non-empty array or object node over prepared children. */
export function containerNode(
  kind: typeof ARRAY | typeof OBJECT,
  value: JsonValue | undefined,
  keys: string[],
  children: ValueNode[],
): ValueNode {
  let hasArrays = kind === ARRAY;
  let leafCount = 0;
  let nullScore = 0;
  for (const child of children) {
    if (child.hasArrays) hasArrays = true;
    leafCount += child.leafCount;
    nullScore += child.nullScore;
  }
  return new ValueNode(kind, value, 0, NO_TEXT, false, keys, children, hasArrays, leafCount, nullScore);
}

/** Back to JSON: untouched subtrees are returned as they were given, rebuilt containers are new. */
export function nodeToJson(node: ValueNode): JsonValue {
  if (node.value !== undefined) return node.value;
  if (node.kind === ARRAY) return node.children.map(nodeToJson);
  const out: Record<string, JsonValue> = {};
  node.keys.forEach((key, i) => setOwn(out, key, nodeToJson(node.children[i]!)));
  return out;
}

/** Sets an own property even for the key `__proto__`, which plain assignment would turn into a prototype change. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
