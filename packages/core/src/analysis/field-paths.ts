import type { JsonValue } from '../json/assert-json.js';
import { escapeSegment } from '../metrics/section-walk.js';

/**
 * Paths of the metrics (docs/spec/metrics.md section 2): segments joined by `.`, with `~` written `~0` and `.` written
 * `~1` inside a segment. Array indices and object keys made of digits look alike in a path, so collapsing list items
 * to `*` needs the values the path walks through.
 */
export function splitPath(path: string): string[] {
  return path.split('.').map((segment) =>
    segment.indexOf('~') < 0 ? segment : segment.replace(/~1/g, '.').replace(/~0/g, '~'),
  );
}

/** The value at `segments` under `root`; `undefined` when something on the way is missing. */
export function valueAt(root: JsonValue | undefined, segments: readonly string[]): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const segment of segments) {
    if (node === null || node === undefined || typeof node !== 'object') return undefined;
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment)) return undefined;
      node = node[Number(segment)];
    } else {
      node = Object.prototype.hasOwnProperty.call(node, segment) ? node[segment] : undefined;
    }
  }
  return node;
}

/**
 * The field a metric path belongs to, list items collapsed: `line_items.3.amount` is `line_items.*.amount` when
 * `line_items` is a list in the annotation (or, where the annotation has nothing, in the prediction). Segments are
 * written back escaped, so a field name is a path in the same notation.
 *
 * @example
 * fieldOf('items.1.sku', { items: [{}, { sku: 'a' }] }, {}); // 'items.*.sku'
 */
export function fieldOf(path: string, annotation: JsonValue, prediction: JsonValue): string {
  const segments = splitPath(path);
  const out: string[] = [];
  let a: JsonValue | undefined = annotation;
  let p: JsonValue | undefined = prediction;
  for (const segment of segments) {
    const list = Array.isArray(a) || (!isContainer(a) && Array.isArray(p));
    out.push(list ? '*' : escapeSegment(segment));
    a = step(a, segment);
    p = step(p, segment);
  }
  return out.join('.');
}

function isContainer(value: JsonValue | undefined): boolean {
  return value !== null && typeof value === 'object';
}

function step(node: JsonValue | undefined, segment: string): JsonValue | undefined {
  return valueAt(node, [segment]);
}

/** A value that fills a field: not missing, not null, not an empty string, list or object. */
export function isFilled(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
