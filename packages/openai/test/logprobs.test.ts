import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals, createExtractionRunner, DEFAULT_INFERENCE_SETTINGS, type ExtractionDocument, type InferenceSettings, type JsonObject } from '@docevals/core';
import { likelihoodsFromLogprobs, openaiExtractor, supportsLogprobs, type TokenLogprob } from '@docevals/openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';

/** Splits JSON text into tokens the way a BPE tokenizer roughly would: punctuation, quotes, words with their space. */
function tokenize(content: string): string[] {
  return content.match(/[{}[\]:,"]| ?[^\s{}[\]:,"]+|\s+/g) ?? [];
}

/** Tokens of `content` with log-probabilities from `probabilityOf(token)` (1 when it returns undefined). */
function logprobs(content: string, probabilityOf: Record<string, number> = {}): TokenLogprob[] {
  return tokenize(content).map((token) => ({ token, logprob: Math.log(Object.hasOwn(probabilityOf, token) ? probabilityOf[token]! : 1) }));
}

describe('likelihoodsFromLogprobs', () => {
  it('gives every leaf the product of its tokens’ probabilities, in the shape of the answer', () => {
    const content = '{"vendor":"ACME Corp","total":42.5,"paid":true,"lines":[{"sku":"A1","qty":2},{"sku":"B2","qty":null}],"notes":[],"meta":{}}';
    const tokens = logprobs(content, { ACME: 0.5, ' Corp': 0.8, '42.5': 0.9, A1: 0.7, '2': 0.6, null: 0.25, true: 0.99 });
    const likelihoods = likelihoodsFromLogprobs(content, tokens)!;
    expect(Object.keys(likelihoods)).toEqual(['vendor', 'total', 'paid', 'lines', 'notes', 'meta']);
    expect(likelihoods.vendor).toBeCloseTo(0.4, 12);
    expect(likelihoods.total).toBeCloseTo(0.9, 12);
    expect(likelihoods.paid).toBeCloseTo(0.99, 12);
    expect(likelihoods.lines).toEqual([
      { sku: expect.closeTo(0.7, 12), qty: expect.closeTo(0.6, 12) },
      { sku: 1, qty: expect.closeTo(0.25, 12) },
    ]);
    expect(likelihoods.notes).toBe(1); // an empty array is a leaf, as in consensus likelihoods
    expect(likelihoods.meta).toBe(1);
  });

  it('counts bytes, not characters: a token holding part of a character still lines up', () => {
    const content = '{"city":"Zürich 🏙","n":1}';
    const bytes = [...new TextEncoder().encode(content)];
    const valueStart = new TextEncoder().encode('{"city":"').length;
    const valueEnd = new TextEncoder().encode('{"city":"Zürich 🏙"').length;
    // One token per byte, the value's bytes at 0.9 each; the emoji's 4 bytes are 4 tokens with bytes but no text.
    const tokens: TokenLogprob[] = bytes.map((b, i) => ({
      token: b < 0x80 ? String.fromCharCode(b) : '',
      bytes: [b],
      logprob: i >= valueStart && i < valueEnd ? Math.log(0.9) : 0,
    }));
    const likelihoods = likelihoodsFromLogprobs(content, tokens)!;
    expect(likelihoods.city).toBeCloseTo(0.9 ** (valueEnd - valueStart), 12);
    expect(likelihoods.n).toBe(1);
  });

  it('is null when unavailable: no logprobs, tokens that do not spell the content, content that is not an object', () => {
    expect(likelihoodsFromLogprobs('{"a":1}', null)).toBeNull();
    expect(likelihoodsFromLogprobs('{"a":1}', [])).toBeNull();
    expect(likelihoodsFromLogprobs('{"a":12}', logprobs('{"a":1}'))).toBeNull();
    expect(likelihoodsFromLogprobs('[1]', logprobs('[1]'))).toBeNull();
    expect(likelihoodsFromLogprobs('{}', logprobs('{}'))).toEqual({});
  });

  it('keeps a key named __proto__ as a plain key', () => {
    const content = '{"__proto__":"x"}';
    const likelihoods = likelihoodsFromLogprobs(content, logprobs(content, { x: 0.5 }))!;
    expect(Object.hasOwn(likelihoods, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(likelihoods, '__proto__')!.value).toBeCloseTo(0.5, 12);
    expect(Object.getPrototypeOf(likelihoods)).toBe(Object.prototype);
  });
});

const schema: JsonObject = {
  type: 'object',
  properties: { invoice_number: { type: ['string', 'null'] }, total: { type: ['number', 'null'] } },
  required: ['invoice_number', 'total'],
  additionalProperties: false,
};
const doc: ExtractionDocument = { id: 'file_a', filename: 'a.txt', mime_type: 'text/plain', bytes: new TextEncoder().encode('Invoice INV-9, total 42') };
const settings = (overrides: Partial<InferenceSettings> = {}): InferenceSettings => ({ ...DEFAULT_INFERENCE_SETTINGS, model: 'gpt-4o-mini', ...overrides });

const server = new FakeOpenAIServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => {
  server.reset();
  // Answers with logprobs only when asked, as OpenAI does.
  server.handle = (request) => {
    const content = JSON.stringify({ invoice_number: 'INV-9', total: 42 });
    return { body: completion(content, request.body.logprobs ? { logprobs: logprobs(content, { 'INV-9': 0.75, '42': 0.5 }) } : {}) };
  };
});
const runner = (options: Record<string, unknown> = {}) =>
  createExtractionRunner({ extractors: [openaiExtractor({ apiKey: 'sk-test', baseURL: server.baseURL, ...options })], retries: 0 });

describe('per-field likelihoods at n_consensus 1 through the OpenAI extractor', () => {
  it('requests logprobs and returns the likelihood of every field', async () => {
    const result = await runner().extractOne(doc, schema, settings());
    expect(server.requests[0]!.body.logprobs).toBe(true);
    expect(result.prediction).toEqual({ invoice_number: 'INV-9', total: 42 });
    expect(result.metadata!.likelihoods).toEqual({ invoice_number: expect.closeTo(0.75, 12), total: expect.closeTo(0.5, 12) });
    expect(result.metadata!.consensus_details).toBeNull();
  });

  it('does not ask reasoning models (they reject it), nor consensus runs; the option overrides per model', async () => {
    expect(supportsLogprobs('o4-mini')).toBe(false);
    const reasoning = await runner().extractOne(doc, schema, settings({ model: 'o4-mini' }));
    expect(server.requests[0]!.body).not.toHaveProperty('logprobs');
    expect(reasoning.metadata!.likelihoods).toBeNull();

    server.requests.length = 0;
    const consensus = await runner().extractOne(doc, schema, settings({ n_consensus: 3 }));
    expect(server.requests.map((r) => r.body.logprobs)).toEqual([undefined, undefined, undefined]);
    expect(consensus.metadata!.likelihoods).toEqual({ invoice_number: 1, total: 1 }); // agreement, not logprobs

    server.requests.length = 0;
    const off = await runner({ logprobs: false }).extractOne(doc, schema, settings());
    expect(server.requests[0]!.body).not.toHaveProperty('logprobs');
    expect(off.metadata!.likelihoods).toBeNull();

    server.requests.length = 0;
    await runner({ logprobs: (model: string) => model === 'my-local-model' }).extractOne(doc, schema, settings({ model: 'my-local-model' }));
    expect(server.requests[0]!.body.logprobs).toBe(true);
  });

  it('reaches the stored iteration through the service: metadata.likelihoods of each prediction', async () => {
    const docevals = createDocevals({ storage: memoryStorage(), extractors: [openaiExtractor({ apiKey: 'sk-test', baseURL: server.baseURL })] });
    const evaluation = await docevals.evals.create('org_a', {
      name: 'e',
      json_schema: schema,
      documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('Invoice INV-9').toString('base64')}` }, annotation: { total: 42 } }],
    });
    const iteration = await docevals.evals.iterations.create('org_a', { evaluation_id: evaluation.id, inference_settings: { model: 'gpt-4o-mini', modality: 'text' } });
    const read = await docevals.evals.iterations.get('org_a', { evaluation_id: evaluation.id, iteration_id: iteration.id });
    expect(read.predictions[0]!.metadata!.likelihoods).toEqual({ invoice_number: expect.closeTo(0.75, 12), total: expect.closeTo(0.5, 12) });
  });

  it('an endpoint that refuses logprobs: asked again at once without them, and not asked for them again', async () => {
    server.handle = (request) =>
      request.body.logprobs
        ? { status: 400, body: { error: { message: "Unrecognized request argument supplied: logprobs", type: 'invalid_request_error' } } }
        : { body: completion({ invoice_number: 'INV-9', total: 42 }) };
    const extraction = runner();
    const first = await extraction.extractOne(doc, schema, settings({ model: 'local-llm' }));
    expect(first.prediction).toEqual({ invoice_number: 'INV-9', total: 42 });
    expect(first.metadata!.likelihoods).toBeNull();
    expect(server.requests.map((r) => r.body.logprobs)).toEqual([true, undefined]);
    await extraction.extractOne(doc, schema, settings({ model: 'local-llm' }));
    expect(server.requests.map((r) => r.body.logprobs)).toEqual([true, undefined, undefined]);
    await extraction.extractOne(doc, schema, settings({ model: 'other-llm' })); // another model is still asked
    expect(server.requests[3]!.body.logprobs).toBe(true);

    // Asked for explicitly: the refusal is the answer (a 400, not retried), no silent fallback.
    server.requests.length = 0;
    const [forced] = await runner({ logprobs: true }).extractAll([doc], schema, settings({ model: 'local-llm' }));
    expect(forced!.metadata?.error).toContain('logprobs');
    expect(server.requests).toHaveLength(1);
  });

  it('null when the endpoint ignores the request and sends no logprobs', async () => {
    server.handle = () => ({ body: completion({ invoice_number: 'INV-9', total: 42 }) });
    const result = await runner().extractOne(doc, schema, settings());
    expect(server.requests[0]!.body.logprobs).toBe(true);
    expect(result.metadata!.likelihoods).toBeNull();
  });
});
