import type { JsonValue } from '../json/assert-json.js';
import { preparedTextSimilarity, TextContext } from './normalize-text.js';
import { BOOL, EMPTY_ARRAY, EMPTY_OBJECT, NULL, NUM, prepareChecked, STR, type ValueNode } from './value-node.js';

/** Below this magnitude two numbers are "zero" and compared absolutely, not relatively. */
const NUMBER_EPSILON = 1e-4;

/** Section 1 on prepared values. A non-empty container falls under "anything else". */
export function leafScore(a: ValueNode, b: ValueNode): number {
  const ka = a.kind;
  const kb = b.kind;
  if (ka === NULL) return kb === NULL || b.empty ? 1 : 0;
  if (kb === NULL) return a.empty ? 1 : 0;
  if (ka === STR) return kb === STR ? preparedTextSimilarity(a.text, b.text) : 0;
  if (ka === NUM) return kb === NUM ? numberSimilarity(a.num, b.num) : 0;
  if (ka === BOOL) return kb === BOOL && a.value === b.value ? 1 : 0;
  if (ka === EMPTY_ARRAY || ka === EMPTY_OBJECT) return kb === EMPTY_ARRAY || kb === EMPTY_OBJECT ? 1 : 0;
  return 0;
}

/** Section 1 on two numbers. */
export function numberSimilarity(x: number, y: number): number {
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  if (ax < NUMBER_EPSILON && ay < NUMBER_EPSILON) return Math.abs(x - y) < NUMBER_EPSILON ? 1 : 0;
  // x - y may overflow to Infinity (1e308 vs -1e308): min(1, Infinity) still gives 0.
  return 1 - Math.min(1, Math.abs(x - y) / Math.max(ax, ay));
}

/**
 * Similarity in [0, 1] of two leaves (docs/spec/metrics.md section 1): strings by Levenshtein over normalized code points,
 * numbers relatively (absolutely below 1e-4), booleans by equality, null equal to "empty" values, and 0 between
 * kinds (`"12"` vs `12`, `true` vs `1`). Throws `validation_error` for values that are not JSON.
 *
 * @example
 * leafSimilarity('Café', 'CAFE'); // 1
 * leafSimilarity(100, 90);        // 0.9
 * leafSimilarity(null, '');       // 1
 * leafSimilarity(true, 1);        // 0
 */
export function leafSimilarity(a: JsonValue, b: JsonValue): number {
  const texts = new TextContext();
  return leafScore(prepareChecked(a, texts, 'a'), prepareChecked(b, texts, 'b'));
}
