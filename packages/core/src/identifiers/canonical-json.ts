import { assertJson } from '../json/assert-json.js';

/** Python's float repr switches to scientific notation outside decimal exponents -4..15. */
const MIN_POSITIONAL_EXPONENT = -4;
const MAX_POSITIONAL_EXPONENT = 15;

/**
 * The JSON text Python's `json.dumps(value, sort_keys=True)` writes (docs/spec/metrics.md section 6): keys sorted by code
 * point, `", "` and `": "` separators, non-ASCII escaped as `\uXXXX` (lowercase hex, surrogate pairs above
 * U+FFFF), integral numbers below 1e16 as integers and every other number in Python's float repr. Throws
 * `validation_error` for values that are not JSON.
 *
 * @example
 * canonicalJson({ b: 1e-7, a: 'é', c: [2.0, 1e16] }); // '{"a": "\\u00e9", "b": 1e-07, "c": [2, 1e+16]}'
 */
export function canonicalJson(value: unknown): string {
  assertJson(value, 'value');
  return write(value);
}

function write(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return pythonNumber(value);
    case 'string':
      return pythonString(value);
  }
  if (Array.isArray(value)) return `[${value.map(write).join(', ')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort(compareCodePoints);
  return `{${keys.map((key) => `${pythonString(key)}: ${write(record[key])}`).join(', ')}}`;
}

/**
 * Orders strings by code point, as Python sorts `str`. JavaScript's default sort compares UTF-16 units, which puts
 * U+E000..U+FFFF after the surrogates of astral characters: wrong for Python.
 */
export function compareCodePoints(x: string, y: string): number {
  const length = Math.min(x.length, y.length);
  for (let i = 0; i < length; i++) {
    const cx = x.charCodeAt(i);
    const cy = y.charCodeAt(i);
    if (cx === cy) continue;
    // Only where a surrogate meets a unit in U+E000..U+FFFF does code point order differ from unit order.
    const sx = cx >= 0xd800 && cx <= 0xdfff;
    const sy = cy >= 0xd800 && cy <= 0xdfff;
    if (sx && !sy && cy >= 0xe000) return 1;
    if (sy && !sx && cx >= 0xe000) return -1;
    return cx - cy;
  }
  return x.length - y.length;
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};
// Python's ensure_ascii: quote and backslash, and everything outside the printable ASCII range U+0020..U+007E.
const NEEDS_ESCAPE = /["\\]|[^\x20-\x7e]/g;

function pythonString(text: string): string {
  const escaped = text.replace(NEEDS_ESCAPE, (ch) => SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${escaped}"`;
}

/**
 * A number as docs/spec/metrics.md section 6 writes it: integral values with abs < 1e16 as integers (`-0` as `0`), others as
 * Python's float repr. Both languages choose the same shortest round-tripping digits; only the layout differs.
 *
 * @example
 * pythonNumber(1e-7); // '1e-07'
 * pythonNumber(1e16); // '1e+16'
 */
export function pythonNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return value === 0 ? '0' : value.toFixed(0);
  // toExponential() without digits gives the shortest digits that round-trip: "d.ddde+x".
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  const sign = value < 0 ? '-' : '';
  if (exponent < MIN_POSITIONAL_EXPONENT || exponent > MAX_POSITIONAL_EXPONENT) {
    const expSign = exponent < 0 ? '-' : '+';
    const expDigits = String(Math.abs(exponent)).padStart(2, '0');
    const body = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    return `${sign}${body}e${expSign}${expDigits}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  // Not integral here, so there are digits after the point.
  const integerDigits = exponent + 1;
  const padded = digits.padEnd(integerDigits + 1, '0');
  return `${sign}${padded.slice(0, integerDigits)}.${padded.slice(integerDigits)}`;
}
