import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/index.js';
import { expectValidationError } from '../metrics/expect-validation-error.js';

describe('canonicalJson: numbers as Python writes them', () => {
  // Expected texts are what CPython's json.dumps writes for the same values (its float repr).
  it.each([
    [2.0, '2'],
    [-0, '0'],
    [0, '0'],
    [1e15, '1000000000000000'],
    [9999999999999998, '9999999999999998'],
    [1e16, '1e+16'],
    [1e21, '1e+21'],
    [123456789012345680000, '1.2345678901234568e+20'],
    [1.5e300, '1.5e+300'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [1e-7, '1e-07'],
    [0.00001, '1e-05'],
    [0.0001, '0.0001'],
    [0.1, '0.1'],
    [123.5, '123.5'],
    [-123.456, '-123.456'],
    [-1.5e-10, '-1.5e-10'],
    [5e-324, '5e-324'],
    [1234567890123456.8, '1234567890123456.8'],
    [1e15 + 0.5, '1000000000000000.5'],
  ])('writes %s as %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });
});

describe('canonicalJson: strings and structure', () => {
  it('escapes like ensure_ascii, with lowercase hex and surrogate pairs', () => {
    expect(canonicalJson('é')).toBe('"\\u00e9"');
    expect(canonicalJson('€')).toBe('"\\u20ac"');
    expect(canonicalJson('北')).toBe('"\\u5317"');
    expect(canonicalJson('𠀀')).toBe('"\\ud840\\udc00"');
    expect(canonicalJson('\u007f\u0001/')).toBe('"\\u007f\\u0001/"');
    expect(canonicalJson('"\\\n\r\t\b\f')).toBe('"\\"\\\\\\n\\r\\t\\b\\f"');
    expect(canonicalJson(' ~')).toBe('" ~"');
  });

  it('sorts keys by code point and uses Python separators', () => {
    expect(canonicalJson({ b: 1, a: [1, { d: null, c: true }], e: {}, f: [] })).toBe(
      '{"a": [1, {"c": true, "d": null}], "b": 1, "e": {}, "f": []}',
    );
    // U+FFFF sorts before U+20000 by code point; UTF-16 order would put the surrogate pair first.
    expect(canonicalJson({ '𠀀': 2, '\uffff': 1, é: 0 })).toBe('{"\\u00e9": 0, "\\uffff": 1, "\\ud840\\udc00": 2}');
  });

  it('refuses values that are not JSON', () => {
    expectValidationError(() => canonicalJson(Number.NaN), 'value');
    expectValidationError(() => canonicalJson({ a: [undefined] }), 'value.a.0');
  });
});
