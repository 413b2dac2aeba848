import type { JsonObject, JsonValue } from '@docevals/core';
import { parseTree, type Node } from 'jsonc-parser';

/** One sampled token of a Chat Completions answer, as `choices[0].logprobs.content[i]` carries it. */
export interface TokenLogprob {
  token: string;
  /** Natural log of the token's probability. */
  logprob: number;
  /** The token's UTF-8 bytes (a token may hold part of a character); else the token text's bytes are used. */
  bytes?: number[] | null;
}

const encoder = new TextEncoder();

/**
 * Per-field likelihoods of one answer from its token log-probabilities: the same tree as the parsed answer, and at
 * every leaf (a string, number, boolean or null, or an empty object or array) the probability the model gave to the
 * tokens that wrote that value, exp(Σ logprob) over every token overlapping the value's text (quotes included).
 * A leaf no token covers is null. The whole result is null when there are no log-probabilities, when the tokens do
 * not spell the content exactly (byte for byte), or when the content is not a JSON object.
 *
 * @example
 * likelihoodsFromLogprobs('{"total":42}', [
 *   { token: '{"', logprob: 0 }, { token: 'total', logprob: 0 }, { token: '":', logprob: 0 },
 *   { token: '42', logprob: Math.log(0.8) }, { token: '}', logprob: 0 },
 * ]);
 * // { total: 0.8 }
 */
export function likelihoodsFromLogprobs(content: string, tokens: ReadonlyArray<TokenLogprob> | null | undefined): JsonObject | null {
  if (!tokens || tokens.length === 0) return null;
  // Token boundaries in UTF-8 bytes.
  const starts: number[] = [];
  let total = 0;
  for (const t of tokens) {
    if (typeof t?.logprob !== 'number' || typeof t.token !== 'string') return null;
    starts.push(total);
    total += Array.isArray(t.bytes) ? t.bytes.length : encoder.encode(t.token).length;
  }
  const byteAt = byteOffsets(content);
  if (total !== byteAt[content.length]) return null;
  const root = parseTree(content, [], { disallowComments: true, allowTrailingComma: false });
  if (!root || root.type !== 'object') return null;

  /** exp of the summed logprobs of the tokens overlapping bytes [from, to). */
  function probability(from: number, to: number): number | null {
    let lo = 0;
    let hi = tokens!.length;
    while (lo < hi) {
      // first token whose end is after `from`
      const mid = (lo + hi) >> 1;
      const end = mid + 1 < starts.length ? starts[mid + 1]! : total;
      if (end <= from) lo = mid + 1;
      else hi = mid;
    }
    let sum = 0;
    let covered = false;
    for (let i = lo; i < tokens!.length && starts[i]! < to; i++) {
      sum += tokens![i]!.logprob;
      covered = true;
    }
    if (!covered || Number.isNaN(sum)) return null;
    return Math.min(1, Math.max(0, Math.exp(sum)));
  }

  function walk(node: Node): JsonValue {
    const children = node.children ?? [];
    if (node.type === 'object' && children.length > 0) {
      const out: JsonObject = {};
      for (const property of children) {
        const [key, value] = property.children ?? [];
        if (key && value) define(out, String(key.value), walk(value));
      }
      return out;
    }
    if (node.type === 'array' && children.length > 0) return children.map(walk);
    return probability(byteAt[node.offset]!, byteAt[node.offset + node.length]!);
  }

  const children = root.children ?? [];
  if (children.length === 0) return {};
  return walk(root) as JsonObject;
}

/** byteAt[i] = UTF-8 length of content.slice(0, i), for every UTF-16 index i (content.length included). */
function byteOffsets(content: string): number[] {
  const out = new Array<number>(content.length + 1);
  let bytes = 0;
  for (let i = 0; i < content.length; i++) {
    out[i] = bytes;
    const code = content.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < content.length) {
      // A surrogate pair is one 4-byte character; its low half is never a value boundary.
      bytes += 4;
      out[++i] = bytes;
      continue;
    } else bytes += 3;
  }
  out[content.length] = bytes;
  return out;
}

/** Assigns without invoking the `__proto__` setter. */
function define(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
