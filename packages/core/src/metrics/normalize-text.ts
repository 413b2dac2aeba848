/**
 * String side of docs/spec/metrics.md section 1: normalization and a Levenshtein similarity that counts code points.
 *
 * `fastest-levenshtein` works on UTF-16 units, so a character above U+FFFF would count as two. A normalized string
 * only holds letters and digits (plus what `toLowerCase` adds, e.g. U+0307), never a private-use character
 * (category Co), so every astral code point can be replaced by a private-use BMP character without ever colliding
 * with a real one: the result has exactly one UTF-16 unit per code point and `distance` counts what the spec counts.
 */
import { distance } from 'fastest-levenshtein';

const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const NOT_ASCII_ALNUM = /[^A-Za-z0-9]+/g;
const SURROGATE = /[\uD800-\uDFFF]/;
const PRIVATE_USE_FIRST = 0xe000;
const PRIVATE_USE_LAST = 0xf8ff;

/** What one code point contributes after NFKD and the letter/digit filter; a lookup table filled on demand. */
const contribution = new Map<number, string>();
const CONTRIBUTION_CACHE_LIMIT = 1 << 16;
/** For BMP units: 0 not looked up yet, 1 stays as it is, 2 drops out, 3 becomes something else (see the map). */
const bmpKind = new Uint8Array(0x10000);
const STAYS = 1;
const DROPS = 2;
const CHANGES = 3;

function contributionOf(codePoint: number): string {
  let piece = contribution.get(codePoint);
  if (piece === undefined) {
    piece = String.fromCodePoint(codePoint).normalize('NFKD').replace(NOT_LETTER_OR_DIGIT, '');
    if (contribution.size < CONTRIBUTION_CACHE_LIMIT) contribution.set(codePoint, piece);
  }
  return piece;
}

function bmpKindOf(unit: number): number {
  let kind = bmpKind[unit]!;
  if (kind === 0) {
    const piece = contributionOf(unit);
    kind = piece === String.fromCharCode(unit) ? STAYS : piece === '' ? DROPS : CHANGES;
    bmpKind[unit] = kind;
  }
  return kind;
}

/**
 * The normalized form of docs/spec/metrics.md section 1: NFKD, letters and digits of any script only, then `toLowerCase`.
 *
 * NFKD of a string is the concatenation of each code point's decomposition, then a reordering that only moves
 * characters of non-zero combining class; no letter or digit has one (a test checks every code point of the
 * runtime), and everything else is filtered out. So decomposing and filtering code point by code point, with a
 * lookup table, gives the same letters as normalizing the whole string, at a fraction of the cost of ICU's
 * `normalize`. Lowercasing stays on the whole string: `toLowerCase` is context-sensitive (final sigma).
 *
 * @example
 * normalizeText('Café, 12 €'); // 'cafe12'
 */
export function normalizeText(text: string): string {
  if (ASCII_ONLY.test(text)) return text.replace(NOT_ASCII_ALNUM, '').toLowerCase();
  let kept = '';
  let runStart = 0; // characters that stay as they are are copied a run at a time
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    let kind: number;
    let piece = '';
    let width = 1;
    if (unit < 0x80) {
      const alnum = (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a);
      kind = alnum ? STAYS : DROPS;
    } else if (unit < 0xd800 || unit > 0xdfff) {
      kind = bmpKindOf(unit);
      if (kind === CHANGES) piece = contribution.get(unit) ?? contributionOf(unit);
    } else {
      const codePoint = text.codePointAt(i)!;
      if (codePoint > 0xffff) width = 2;
      piece = contributionOf(codePoint);
      kind = piece.length === width && piece === text.slice(i, i + width) ? STAYS : CHANGES;
    }
    if (kind !== STAYS) {
      kept += text.slice(runStart, i) + piece;
      runStart = i + width;
    }
    i += width - 1;
  }
  kept += text.slice(runStart);
  return kept.toLowerCase();
}

/** The same as {@link normalizeText}, by the book: ICU's NFKD on the whole string. Kept for the equivalence test. */
export function normalizeTextReference(text: string): string {
  return text.normalize('NFKD').replace(NOT_LETTER_OR_DIGIT, '').toLowerCase();
}

/** A normalized string ready for Levenshtein: `units` has one UTF-16 unit per code point, or `codePoints` is set. */
export interface PreparedText {
  /** The normalized string. */
  normalized: string;
  units: string;
  /** Only when the context ran out of private-use characters: the exact code points, compared the slow way. */
  codePoints: number[] | null;
  /** 64-bit signature of the characters present (bit = hash of the unit), for {@link textSimilarityUpperBound}. */
  signatureLow: number;
  signatureHigh: number;
  /** How many bits of the signature are set. */
  signatureBits: number;
  /** The work budget of the context that prepared it, which every comparison of the string spends. */
  work: TextWork;
}

/**
 * What one comparison's Levenshtein computations may still spend, in character pairs (docs/spec/metrics.md
 * section 4, Levenshtein work budget): each distance of two unequal normalized strings costs n x m before it runs
 * (see {@link levenshteinCost}). Once a distance would pass the budget, it and every later one are not computed:
 * unequal strings score 0 (equal ones still score 1), and {@link TextWork.exhausted} tells the caller.
 */
export class TextWork {
  exhausted = false;
  constructor(public remaining: number) {}

  /** Takes `pairs` from the budget; false (and nothing taken) when they do not fit or the budget ran out before. */
  spend(pairs: number): boolean {
    if (this.exhausted || pairs > this.remaining) {
      this.exhausted = true;
      return false;
    }
    this.remaining -= pairs;
    return true;
  }
}

/**
 * Caches normalized strings for one comparison (a document, a matrix of items), and owns the astral -> private-use
 * mapping, so that the mapping is consistent between all strings compared within it, and the {@link TextWork}
 * budget all their comparisons share (unlimited unless given).
 */
export class TextContext {
  readonly work: TextWork;
  private readonly cache = new Map<string, PreparedText>();
  private readonly layouts = new Map<string, string[]>();
  private lastKeys: string[] | null = null;
  private readonly astral = new Map<number, string>();
  private nextPrivate = PRIVATE_USE_FIRST;

  constructor(maxTextWork = Number.POSITIVE_INFINITY) {
    this.work = new TextWork(maxTextWork);
  }

  /**
   * One shared array per distinct key list: objects with the same keys in the same order (items of one list, the
   * same field in annotation and prediction) then compare their keys with a single `===`.
   */
  sharedKeys(keys: string[]): string[] {
    // Items of a list follow each other: most objects have the key list of the one prepared just before.
    const last = this.lastKeys;
    if (last !== null && sameKeys(last, keys)) return last;
    const id = keys.join('\u0000');
    let shared = this.layouts.get(id);
    // A key holding "\u0000" could make two different lists join alike: check before sharing.
    if (shared === undefined || !sameKeys(shared, keys)) {
      this.layouts.set(id, keys);
      shared = keys;
    }
    this.lastKeys = shared;
    return shared;
  }

  prepare(text: string): PreparedText {
    let prepared = this.cache.get(text);
    if (prepared === undefined) {
      prepared = this.toUnits(normalizeText(text));
      this.cache.set(text, prepared);
    }
    return prepared;
  }

  private toUnits(normalized: string): PreparedText {
    if (!SURROGATE.test(normalized)) return withSignature(normalized, normalized, this.work);
    let units = '';
    let runStart = 0; // letters of the BMP are copied a run at a time
    for (let i = 0; i < normalized.length; i++) {
      const unit = normalized.charCodeAt(i);
      if (unit < 0xd800 || unit > 0xdbff) continue;
      const cp = normalized.codePointAt(i)!;
      if (cp <= 0xffff) continue; // a lone surrogate stays as it is
      let mapped = this.astral.get(cp);
      if (mapped === undefined) {
        // More than 6,400 distinct astral letters in one comparison: give up on the trick for this string.
        if (this.nextPrivate > PRIVATE_USE_LAST) {
          const codePoints = Array.from(normalized, (c) => c.codePointAt(0)!);
          return { normalized, units: normalized, codePoints, signatureLow: 0, signatureHigh: 0, signatureBits: 0, work: this.work };
        }
        mapped = String.fromCharCode(this.nextPrivate++);
        this.astral.set(cp, mapped);
      }
      units += normalized.slice(runStart, i) + mapped;
      i++;
      runStart = i + 1;
    }
    units += normalized.slice(runStart);
    return withSignature(normalized, units, this.work);
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function withSignature(normalized: string, units: string, work: TextWork): PreparedText {
  let low = 0;
  let high = 0;
  for (let i = 0; i < units.length; i++) {
    const bit = Math.imul(units.charCodeAt(i), 0x9e3779b1) >>> 26; // top 6 bits of a multiplicative hash
    if (bit < 32) low |= 1 << bit;
    else high |= 1 << (bit - 32);
  }
  const bits = popcount(low) + popcount(high);
  return { normalized, units, codePoints: null, signatureLow: low, signatureHigh: high, signatureBits: bits, work };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Levenshtein similarity of two prepared strings: 1 if both are empty, else 1 - distance / longer length. Past the
 * work budget of `x`'s context: 1 if the normalized strings are equal, else 0.
 */
export function preparedTextSimilarity(x: PreparedText, y: PreparedText): number {
  if (x.codePoints !== null || y.codePoints !== null) {
    if (x.normalized === y.normalized) return 1;
    // From the normalized strings: `units` of the other side may hold private-use stand-ins.
    const a = x.codePoints ?? Array.from(x.normalized, (c) => c.codePointAt(0)!);
    const b = y.codePoints ?? Array.from(y.normalized, (c) => c.codePointAt(0)!);
    if (!x.work.spend(levenshteinCost(a.length, b.length, false))) return 0;
    return ratio(codePointDistance(a, b), Math.max(a.length, b.length));
  }
  const a = x.units;
  const b = y.units;
  if (a === b) return 1;
  if (!x.work.spend(levenshteinCost(a.length, b.length, true))) return 0;
  return ratio(distance(a, b), Math.max(a.length, b.length));
}

/**
 * An upper bound of {@link preparedTextSimilarity} in a few operations: every signature bit set for `x` and not for
 * `y` stands for at least one character of `x` that `y` lacks, which some edit must remove, and the same the other
 * way; so does the difference in length. Alignment uses it to skip the exact distance of unlikely pairs.
 */
export function textSimilarityUpperBound(x: PreparedText, y: PreparedText): number {
  if (x.codePoints !== null || y.codePoints !== null) return 1;
  return signatureBound(x.units.length, x.signatureBits, y.units.length, y.signatureBits, sharedBits(x, y));
}

/** How many signature bits `x` and `y` both have. */
export function sharedBits(x: PreparedText, y: PreparedText): number {
  return popcount(x.signatureLow & y.signatureLow) + popcount(x.signatureHigh & y.signatureHigh);
}

/**
 * {@link textSimilarityUpperBound} from the lengths of the two strings' units, their signature bit counts and the
 * bits they share: the bits only one side has are its count less the shared ones.
 */
export function signatureBound(la: number, bitsA: number, lb: number, bitsB: number, shared: number): number {
  return ratio(Math.max(bitsA - shared, bitsB - shared, la - lb, lb - la), Math.max(la, lb));
}

/** fastest-levenshtein's machine word: it compares the shorter string 32 characters at a time. */
const WORD = 32;
/** {@link codePointDistance} does 4.9e8 pairs/s where fastest-levenshtein does 5e9 to 7.5e9 (docs/spec/metrics.md). */
const CODE_POINT_PAIR_COST = 16;

/**
 * What one distance costs, in character pairs: n x m, with the shorter string rounded up to whole 32-character
 * words, since fastest-levenshtein walks the longer string once per word of the shorter (a 1-character string
 * against a long one costs as much as a 32-character one). The code-point fallback compares one pair per step,
 * measured a sixteenth as fast, so each of its pairs counts 16. Then the budget's time holds for any shape.
 */
export function levenshteinCost(n: number, m: number, wordParallel: boolean): number {
  if (!wordParallel) return CODE_POINT_PAIR_COST * n * m;
  const shorter = Math.min(n, m);
  return Math.max(n, m) * Math.ceil(shorter / WORD) * WORD;
}

function ratio(edits: number, longest: number): number {
  return longest === 0 ? 1 : 1 - edits / longest;
}

/** Classic two-row edit distance over code points; only for the rare strings that could not be mapped. */
export function codePointDistance(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = new Int32Array(b.length + 1);
  let curr = new Int32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    curr[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitute = prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      curr[j] = Math.min(substitute, prev[j]! + 1, curr[j - 1]! + 1);
    }
    [prev, curr] = [curr, prev];
  }
  return prev[b.length]!;
}
