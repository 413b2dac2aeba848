import type { ApiCost, TokenUsage } from '@docevals/core';

/** A model's price in USD per 1M tokens. `cached_input`, when given, applies to cached prompt tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cached_input?: number;
}

/**
 * Standard (non-batch) prices of common OpenAI models, USD per 1M tokens, as published on OpenAI's pricing page
 * (checked 2026). Prices change: pass `prices` to `openaiExtractor` to override or extend this table. A model not
 * in the table has an unknown cost (null), never a made-up one.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-5': { input: 1.25, output: 10, cached_input: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cached_input: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cached_input: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cached_input: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cached_input: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cached_input: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cached_input: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cached_input: 0.075 },
  o3: { input: 2, output: 8, cached_input: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cached_input: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cached_input: 0.275 },
  o1: { input: 15, output: 60, cached_input: 7.5 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
  // Anthropic, Google (Gemini API, prompts up to 200k tokens) and xAI, as published on their pricing pages.
  'claude-opus-4-1': { input: 15, output: 75, cached_input: 1.5 },
  'claude-sonnet-4-5': { input: 3, output: 15, cached_input: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cached_input: 0.1 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cached_input: 0.31 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cached_input: 0.075 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cached_input: 0.025 },
  'grok-4': { input: 3, output: 15, cached_input: 0.75 },
  'grok-3': { input: 3, output: 15, cached_input: 0.75 },
  'grok-3-mini': { input: 0.3, output: 0.5, cached_input: 0.075 },
});

/**
 * The price of `model`: its own entry, else the entry of the model without a dated snapshot suffix
 * (`gpt-4o-mini-2024-07-18` -> `gpt-4o-mini`) or a `provider/` prefix (`openai/gpt-4o`). Undefined when unknown.
 */
export function findPrice(model: string, prices: Readonly<Record<string, ModelPrice>>): ModelPrice | undefined {
  const candidates = [model, model.replace(/^[^/]+\//, '')];
  for (const name of candidates) {
    if (Object.hasOwn(prices, name)) return prices[name];
    const undated = name.replace(/-\d{4}-\d{2}-\d{2}$/, '');
    if (undated !== name && Object.hasOwn(prices, undated)) return prices[undated];
  }
  return undefined;
}

/**
 * The cost of one call from its token usage; null when the model's price or the usage is unknown.
 *
 * @example
 * computeCost('gpt-4o-mini', { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 }, DEFAULT_PRICES);
 * // { value: 0.00027, currency: 'USD' }
 */
export function computeCost(
  model: string,
  usage: (TokenUsage & { cached_tokens?: number }) | undefined,
  prices: Readonly<Record<string, ModelPrice>>,
): ApiCost | null {
  const price = findPrice(model, prices);
  if (!price || !usage) return null;
  const cached = Math.min(usage.cached_tokens ?? 0, usage.prompt_tokens);
  const cachedPrice = price.cached_input ?? price.input;
  const value =
    ((usage.prompt_tokens - cached) * price.input + cached * cachedPrice + usage.completion_tokens * price.output) / 1_000_000;
  return { value, currency: 'USD' };
}
