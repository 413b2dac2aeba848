import { allowsStrict, computeCost, DEFAULT_PRICES, findPrice, isReasoningModel, samplingParams, schemaName } from '@docevals/openai';
import { DEFAULT_INFERENCE_SETTINGS } from '@docevals/core';
import { describe, expect, it } from 'vitest';

describe('request rules', () => {
  it('tells reasoning models from the others', () => {
    for (const m of ['o1', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'openai/gpt-5-nano']) expect(isReasoningModel(m), m).toBe(true);
    for (const m of ['gpt-4o', 'gpt-4.1-mini', 'gpt-5-chat-latest', 'llama-3.1-70b', 'omni-x']) expect(isReasoningModel(m), m).toBe(false);
  });

  it('maps minimal effort to low for the o-series, and omits a null effort', () => {
    const s = { ...DEFAULT_INFERENCE_SETTINGS, reasoning_effort: 'minimal' as const };
    expect(samplingParams({ ...s, model: 'o3' })).toEqual({ reasoning_effort: 'low' });
    expect(samplingParams({ ...s, model: 'gpt-5' })).toEqual({ reasoning_effort: 'minimal' });
    expect(samplingParams({ ...s, model: 'gpt-5', reasoning_effort: null })).toEqual({});
    expect(samplingParams({ ...s, model: 'gpt-4o', temperature: 0.3 })).toEqual({ temperature: 0.3 });
  });

  it('uses strict only when every object is closed and requires all its properties', () => {
    const closed = { type: 'object', additionalProperties: false, required: ['a', 'b'], properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['c'], properties: { c: { type: 'number' } } } } } };
    expect(allowsStrict(closed)).toBe(true);
    expect(allowsStrict({ ...closed, additionalProperties: true })).toBe(false);
    expect(allowsStrict({ ...closed, required: ['a'] })).toBe(false);
    const openItem = structuredClone(closed) as any;
    delete openItem.properties.b.items.additionalProperties;
    expect(allowsStrict(openItem)).toBe(false);
    const viaDefs = { ...closed, $defs: { x: { type: 'object', properties: { y: { type: 'string' } } } } };
    expect(allowsStrict(viaDefs)).toBe(false);
  });

  it('names the response format after the schema title', () => {
    expect(schemaName({ title: 'Purchase order (v2)' })).toBe('Purchase_order_v2');
    expect(schemaName({})).toBe('extraction');
  });

  it('prices known models and dated snapshots, and nothing else', () => {
    expect(findPrice('gpt-4o-mini-2024-07-18', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['gpt-4o-mini']);
    expect(findPrice('my-finetune', DEFAULT_PRICES)).toBeUndefined();
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, total_tokens: 2_000_000 };
    expect(computeCost('gpt-4.1', usage, DEFAULT_PRICES)).toEqual({ value: 10, currency: 'USD' });
    expect(computeCost('gpt-4.1', { ...usage, cached_tokens: 1_000_000 }, DEFAULT_PRICES)).toEqual({ value: 8.5, currency: 'USD' });
    expect(computeCost('unknown', usage, DEFAULT_PRICES)).toBeNull();
    expect(computeCost('gpt-4.1', undefined, DEFAULT_PRICES)).toBeNull();
  });
});
