import { describe, expect, it } from 'vitest';
import { leafSimilarity, normalizeText } from '../../src/index.js';
import { normalizeTextReference } from '../../src/metrics/normalize-text.js';
import { expectValidationError } from './expect-validation-error.js';

describe('leafSimilarity: nulls', () => {
  it('scores null against null and against every "empty" value as 1', () => {
    expect(leafSimilarity(null, null)).toBe(1);
    for (const empty of ['', 0, -0, false, [], {}]) {
      expect(leafSimilarity(null, empty)).toBe(1);
      expect(leafSimilarity(empty, null)).toBe(1);
    }
  });

  it('scores null against any filled value as 0', () => {
    for (const filled of ['a', ' ', 1, 0.00001, -3, true, [0], { a: 1 }]) {
      expect(leafSimilarity(null, filled)).toBe(0);
      expect(leafSimilarity(filled, null)).toBe(0);
    }
  });
});

describe('leafSimilarity: kinds', () => {
  it('compares booleans by equality, and never as numbers', () => {
    expect(leafSimilarity(true, true)).toBe(1);
    expect(leafSimilarity(false, false)).toBe(1);
    expect(leafSimilarity(true, false)).toBe(0);
    expect(leafSimilarity(true, 1)).toBe(0);
    expect(leafSimilarity(0, false)).toBe(0);
  });

  it('gives 0 between different kinds and 1 between empty containers', () => {
    expect(leafSimilarity('12', 12)).toBe(0);
    expect(leafSimilarity('x', [])).toBe(0);
    expect(leafSimilarity([], '')).toBe(0);
    expect(leafSimilarity({}, 0)).toBe(0);
    expect(leafSimilarity([], {})).toBe(1);
    expect(leafSimilarity({}, {})).toBe(1);
    expect(leafSimilarity([], [])).toBe(1);
  });
});

describe('leafSimilarity: numbers', () => {
  it('is 1 - |a-b| / max(|a|, |b|), floored at 0', () => {
    expect(leafSimilarity(100, 90)).toBeCloseTo(0.9, 12);
    expect(leafSimilarity(90, 100)).toBeCloseTo(0.9, 12);
    expect(leafSimilarity(2.0, 2)).toBe(1);
    expect(leafSimilarity(-5, 5)).toBe(0); // 10 / 5 is capped at 1
    expect(leafSimilarity(1e308, -1e308)).toBe(0); // the difference overflows to Infinity
    expect(leafSimilarity(0, 0.0002)).toBe(0); // not both below 1e-4: relative
  });

  it('compares two numbers below 1e-4 in magnitude absolutely', () => {
    expect(leafSimilarity(0.00005, 0.00009)).toBe(1);
    expect(leafSimilarity(0, 0.00005)).toBe(1);
    expect(leafSimilarity(0.00009, -0.00009)).toBe(0); // 1.8e-4 apart
  });
});

describe('leafSimilarity: strings', () => {
  it('ignores case, accents, punctuation and spaces', () => {
    expect(leafSimilarity('Café', 'CAFE')).toBe(1);
    expect(leafSimilarity('a b-c.', 'ABC')).toBe(1);
    expect(leafSimilarity('!!!', '')).toBe(1); // both normalize to ""
    expect(leafSimilarity('!!!', 'a')).toBe(0);
    expect(leafSimilarity('', '')).toBe(1);
  });

  it('is 1 - distance / longer length', () => {
    expect(leafSimilarity('kitten', 'sitting')).toBeCloseTo(1 - 3 / 7, 12);
    expect(leafSimilarity('abc', 'abd')).toBeCloseTo(2 / 3, 12);
  });

  it('keeps letters of every script', () => {
    expect(leafSimilarity('北京', '上海')).toBe(0);
    expect(leafSimilarity('北京', '北京市')).toBeCloseTo(2 / 3, 12);
    expect(leafSimilarity('Москва', 'москва')).toBe(1);
  });

  it('applies NFKD compatibility decomposition', () => {
    expect(leafSimilarity('ﬁne', 'fine')).toBe(1); // U+FB01 ligature
    expect(leafSimilarity('①②', '12')).toBe(1);
    expect(leafSimilarity('İ', 'i')).toBe(1); // I + combining dot; the dot is not a letter
  });

  it('lowercases without case folding, with the final sigma rule', () => {
    expect(leafSimilarity('ß', 'ss')).toBe(0); // folding would make them equal
    expect(leafSimilarity('ΟΔΟΣ', 'οδος')).toBe(1); // final Σ lowercases to ς
    expect(leafSimilarity('ΟΔΟΣ', 'οδοσ')).toBeCloseTo(0.75, 12);
  });

  it('counts code points, not UTF-16 units, for characters above U+FFFF', () => {
    // In UTF-16 units these would give 0.5, 1/3 and 0.5.
    expect(leafSimilarity('𠀀', '𠀁')).toBe(0);
    expect(leafSimilarity('𠀀a', 'a')).toBeCloseTo(0.5, 12);
    expect(leafSimilarity('𠀀𠀁', '𠀁𠀀')).toBe(0);
    expect(leafSimilarity('x𠀀y', 'x𠀁y')).toBeCloseTo(2 / 3, 12);
    expect(leafSimilarity('𝐀𝐁', 'ab')).toBe(1); // mathematical bold: NFKD gives A, B
  });
});

describe('normalizeText', () => {
  it('keeps letters and digits of any script, lowercased', () => {
    expect(normalizeText('Café, 12 €')).toBe('cafe12');
    expect(normalizeText('北京 - 2024')).toBe('北京2024');
    expect(normalizeText('𠀀!')).toBe('𠀀');
  });

  it('equals NFKD of the whole string on tricky characters', () => {
    const pool = ['a', 'Z', '9', 'é', 'e\u0301', 'Å', '\u0345', '\u0316', '한', '\u1100\u1161', 'ﬁ', '①', 'ß'];
    pool.push('Σ', 'İ', '𠀀', '𝐀', '\ud800', ' ', '.', '€', 'ǅ', 'ﾊﾟ', '\u0e33', '\u00bd');
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let n = 0; n < 500; n++) {
      let text = '';
      const length = 1 + Math.floor(next() * 8);
      for (let i = 0; i < length; i++) text += pool[Math.floor(next() * pool.length)];
      expect(normalizeText(text), JSON.stringify(text)).toBe(normalizeTextReference(text));
    }
  });

  it('equals NFKD of the whole string for every BMP character, and a range of astral ones', () => {
    const differ: string[] = [];
    const check = (cp: number) => {
      const text = `é${String.fromCodePoint(cp)}Ab`;
      if (normalizeText(text) !== normalizeTextReference(text)) differ.push(cp.toString(16));
    };
    for (let cp = 0x80; cp <= 0xffff; cp++) if (cp < 0xd800 || cp > 0xdfff) check(cp);
    for (let cp = 0x1d400; cp <= 0x1d7ff; cp++) check(cp); // mathematical alphanumerics: compatibility letters
    for (let cp = 0x1f100; cp <= 0x1f1ff; cp++) check(cp); // enclosed alphanumerics
    expect(differ).toEqual([]);
  }, 30_000);

  it('relies on no letter or digit having a non-zero combining class in this runtime', () => {
    // normalizeText decomposes code point by code point; that equals NFKD of the whole string only because the
    // canonical reordering NFKD adds never moves a letter or digit. Check that over every code point.
    const letterOrDigit = /^[\p{L}\p{N}]$/u;
    const reordered: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const y = String.fromCodePoint(cp);
      if (!letterOrDigit.test(y)) continue;
      const d = y.normalize('NFD');
      if (('\u0345' + y).normalize('NFD') !== '\u0345' + d) reordered.push(cp);
      else if (d === y && (y + '\u0334').normalize('NFD') !== y + '\u0334') reordered.push(cp);
    }
    expect(reordered).toEqual([]);
  }, 30_000);
});

describe('leafSimilarity: validation', () => {
  it('refuses values that are not JSON, naming the argument', () => {
    expectValidationError(() => leafSimilarity(undefined as never, 1), 'a');
    expectValidationError(() => leafSimilarity(1, Number.NaN), 'b');
    expectValidationError(() => leafSimilarity(Number.POSITIVE_INFINITY, 1), 'a');
    expectValidationError(() => leafSimilarity((() => 1) as never, 1), 'a');
  });
});

describe('compareDocuments with more distinct astral letters than private-use stand-ins', () => {
  it('still counts code points', async () => {
    const { compareDocuments } = await import('../../src/index.js');
    // 7,000 distinct CJK Extension B letters: more than the 6,400 private-use characters one comparison can map.
    const many = Array.from({ length: 7000 }, (_, i) => String.fromCodePoint(0x20000 + i)).join('');
    const r = compareDocuments(
      { a: '𠀀x', long: many, b: 'y𪀀', c: '𠀀' },
      { a: 'x', long: many.slice(2), b: 'y𪀁', c: '𠀀𪀂' }, // slice(2) drops one astral character (two units)
    );
    expect(r.flat_similarities.a).toBeCloseTo(0.5, 12);
    expect(r.flat_similarities.long).toBeCloseTo(1 - 1 / 7000, 12);
    expect(r.flat_similarities.b).toBeCloseTo(0.5, 12);
    // One side mapped to a stand-in before the stand-ins ran out, the other compared by code points.
    expect(r.flat_similarities.c).toBeCloseTo(0.5, 12);
  });
});

describe('TextContext.prepare', () => {
  it('gives every astral letter one private-use stand-in, the same one each time, in place', async () => {
    const { TextContext } = await import('../../src/metrics/normalize-text.js');
    const texts = new TextContext();
    const { units, normalized } = texts.prepare('A𠀀b, 𪀀𠀀C!𝐃');
    expect(normalized).toBe('a𠀀b𪀀𠀀cd');
    expect(units).toHaveLength(7);
    expect(units.slice(5)).toBe('cd');
    expect(units[0]).toBe('a');
    expect(units[2]).toBe('b');
    expect(units[1]).toBe(units[4]);
    expect(units[1]).not.toBe(units[3]);
    for (const i of [1, 3]) expect(units.charCodeAt(i)).toBeGreaterThanOrEqual(0xe000);
    expect(texts.prepare('𪀀').units).toBe(units[3]);
    expect(leafSimilarity('x𠀀y𪀀', 'x𪀀y𪀀')).toBeCloseTo(0.75, 12);
  });
});
