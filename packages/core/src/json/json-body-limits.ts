import { DocevalsError } from '../errors.js';
import { LIMITS } from '../limits.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/**
 * Counts the objects and arrays of a JSON text without parsing it (one pass over the characters, strings skipped)
 * and throws `payload_too_large` past `max`: `JSON.parse` of 10 million `{}` in 31 MB takes seconds and most of a
 * gigabyte, this refuses it in milliseconds. Malformed JSON is not diagnosed here; `JSON.parse` does that after.
 *
 * @example
 * assertJsonContainersWithin('{"documents":[{},{}]}'); // 4 containers: fine
 * assertJsonContainersWithin('[' + '{},'.repeat(2e6) + '{}]'); // throws payload_too_large (413)
 */
export function assertJsonContainersWithin(text: string, max: number = LIMITS.maxJsonContainersPerBody): void {
  let containers = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: to the next quote that is not escaped.
      for (i++; i < length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++containers > max) {
        throw new DocevalsError(
          'payload_too_large',
          `The request body holds more than ${max} JSON objects and arrays, this server's limit; send fewer or smaller values.`,
        );
      }
    }
  }
}

/** The own key no JSON object of a request may have: zod and most code would drop it or change the prototype. */
export const FORBIDDEN_KEY = '__proto__';

/**
 * The path of the first own `__proto__` key in a parsed request (as `JSON.parse` creates them), or null. Refused
 * rather than dropped (docs/spec/limits.md): an annotation `{"__proto__": ...}` would otherwise be stored without
 * that key and without a word. Iterative, visits every container once.
 *
 * @example
 * findForbiddenKey(JSON.parse('{"annotation":{"__proto__":{}}}')); // ['annotation', '__proto__']
 */
export function findForbiddenKey(value: unknown): Array<string> | null {
  interface Frame {
    value: unknown;
    key: string;
    parent: Frame | null;
    depth: number;
  }
  const pathOf = (frame: Frame | null, last: string): string[] => {
    const path = [last];
    for (let f = frame; f !== null && f.parent !== null; f = f.parent) path.push(f.key);
    return path.reverse();
  };
  const stack: Frame[] = [{ value, key: '', parent: null, depth: 0 }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    // Past this depth the schemas refuse the value anyway (64 levels under any JSON field).
    if (v === null || typeof v !== 'object' || seen.has(v) || frame.depth > MAX_WALK_DEPTH) continue;
    seen.add(v);
    const depth = frame.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const item: unknown = v[i];
        if (item !== null && typeof item === 'object') stack.push({ value: item, key: String(i), parent: frame, depth });
      }
      continue;
    }
    if (Object.prototype.hasOwnProperty.call(v, FORBIDDEN_KEY)) return pathOf(frame, FORBIDDEN_KEY);
    for (const key of Object.keys(v)) {
      const child = (v as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push({ value: child, key, parent: frame, depth });
    }
  }
  return null;
}

const MAX_WALK_DEPTH = 128;
