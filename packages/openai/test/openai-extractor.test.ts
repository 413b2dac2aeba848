import {
  createExtractionRunner,
  DEFAULT_INFERENCE_SETTINGS,
  localRulesExtractor,
  type ExtractionDocument,
  type InferenceSettings,
  type JsonObject,
} from '@docevals/core';
import { openaiExtractor, pdfText } from '@docevals/openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiError, completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';
import { tinyPdf } from './support/tiny-pdf.js';

const schema: JsonObject = {
  type: 'object',
  title: 'Invoice',
  properties: {
    invoice_number: { type: ['string', 'null'], description: 'The number printed on the invoice' },
    total: { type: ['number', 'null'] },
  },
  required: ['invoice_number', 'total'],
  additionalProperties: false,
};

const server = new FakeOpenAIServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());

function settings(overrides: Partial<InferenceSettings> = {}): InferenceSettings {
  return { ...DEFAULT_INFERENCE_SETTINGS, model: 'gpt-4o-mini', ...overrides };
}

function runner(overrides: Record<string, unknown> = {}, extractorOptions: Record<string, unknown> = {}) {
  return createExtractionRunner({
    extractors: [openaiExtractor({ apiKey: 'sk-test', baseURL: server.baseURL, ...extractorOptions })],
    backoffBaseMs: 5,
    backoffMaxMs: 20,
    ...overrides,
  });
}

const enc = (s: string) => new TextEncoder().encode(s);
const textDoc = (id: string, text: string, mime_type = 'text/plain'): ExtractionDocument => ({
  id,
  filename: `${id}.txt`,
  mime_type,
  bytes: enc(text),
});
const PNG = Uint8Array.from(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'));
const pdfDoc: ExtractionDocument = { id: 'file_pdf', filename: 'invoice.pdf', mime_type: 'application/pdf', bytes: tinyPdf('Invoice Number: INV-77 Total: 42.50') };
const pngDoc: ExtractionDocument = { id: 'file_png', filename: 'scan.png', mime_type: 'image/png', bytes: PNG };

function userParts(index = 0): any[] {
  return server.requests[index]!.body.messages[1].content;
}

describe('a hand-written PDF', () => {
  it('is read by unpdf', async () => {
    expect(await pdfText(pdfDoc.bytes)).toContain('Invoice Number: INV-77 Total: 42.50');
  });
});

describe('the request', () => {
  it('carries the schema as a strict json_schema response format, the system prompt and the document text', async () => {
    server.handle = () => ({ body: completion({ invoice_number: 'A-1', total: 3 }) });
    const result = await runner({}, { defaultHeaders: { 'x-gateway': 'yes' }, maxTokens: 500 }).extractOne(
      textDoc('file_a', 'Invoice Number: A-1\nTotal: 3'),
      schema,
      settings({ modality: 'text' }),
    );
    expect(result.prediction).toEqual({ invoice_number: 'A-1', total: 3 });
    const request = server.requests[0]!;
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.headers['x-gateway']).toBe('yes');
    expect(request.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'Invoice', schema, strict: true } });
    expect(request.body.messages[0].role).toBe('system');
    expect(request.body.messages[0].content).toContain('invoice_number: The number printed on the invoice');
    expect(userParts()).toContainEqual({ type: 'text', text: 'Invoice Number: A-1\nTotal: 3' });
    expect(request.body.max_completion_tokens).toBe(500);
    expect(request.body.temperature).toBe(0);
    expect(request.body).not.toHaveProperty('reasoning_effort');
  });

  it('sends strict false when an object is open or has optional properties', async () => {
    server.handle = () => ({ body: completion({ total: 1 }) });
    const loose = { type: 'object', properties: { total: { type: 'number' }, note: { type: 'string' } }, required: ['total'] };
    await runner().extractOne(textDoc('f', 'x'), loose, settings());
    expect(server.requests[0]!.body.response_format.json_schema).toMatchObject({ name: 'extraction', strict: false });
  });

  it('sends a PDF as its text in modality text', async () => {
    server.handle = () => ({ body: completion({ invoice_number: 'INV-77', total: 42.5 }) });
    await runner().extractOne(pdfDoc, schema, settings({ modality: 'text' }));
    const parts = userParts();
    expect(parts.some((p) => p.type === 'text' && p.text.includes('Invoice Number: INV-77 Total: 42.50'))).toBe(true);
    expect(parts.some((p) => p.type === 'file' || p.type === 'image_url')).toBe(false);
  });

  it('sends an image as an image_url data URL in modality image', async () => {
    server.handle = () => ({ body: completion({ invoice_number: null, total: null }) });
    await runner().extractOne(pngDoc, schema, settings({ modality: 'image' }));
    expect(userParts()).toContainEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${Buffer.from(PNG).toString('base64')}` },
    });
  });

  it('sends a PDF as a file part in modality native', async () => {
    server.handle = () => ({ body: completion({ invoice_number: 'INV-77', total: 42.5 }) });
    await runner().extractOne(pdfDoc, schema, settings({ modality: 'native' }));
    const file = userParts().find((p) => p.type === 'file');
    expect(file).toEqual({
      type: 'file',
      file: { filename: 'invoice.pdf', file_data: `data:application/pdf;base64,${Buffer.from(pdfDoc.bytes).toString('base64')}` },
    });
    expect(userParts().some((p) => p.type === 'text' && p.text.includes('INV-77'))).toBe(false);
  });

  it('sends the rendered pages and the text layer in modality image+text', async () => {
    server.handle = () => ({ body: completion({ invoice_number: 'INV-77', total: 42.5 }) });
    await runner().extractOne(pdfDoc, schema, settings({ modality: 'image+text' }));
    const parts = userParts();
    expect(parts.some((p) => p.type === 'file')).toBe(false);
    expect(parts.filter((p) => p.type === 'image_url' && p.image_url.url.startsWith('data:image/png;base64,'))).toHaveLength(1);
    expect(parts.some((p) => p.type === 'text' && p.text.includes('Invoice Number: INV-77 Total: 42.50'))).toBe(true);
  });

  it('refuses an image in modality text without calling the provider', async () => {
    const [result] = await runner().extractAll([pngDoc], schema, settings({ modality: 'text' }));
    expect(result!.metadata?.error).toContain('modality "text" cannot read the image');
    expect(server.requests).toHaveLength(0);
  });

  it('sends reasoning_effort and no temperature to reasoning models, and the reverse to the others', async () => {
    server.handle = () => ({ body: completion({ invoice_number: null, total: null }) });
    const r = runner();
    await r.extractOne(textDoc('f', 'x'), schema, settings({ model: 'o4-mini', reasoning_effort: 'high', temperature: 0.7 }));
    await r.extractOne(textDoc('f', 'x'), schema, settings({ model: 'gpt-5-mini', reasoning_effort: 'minimal' }));
    await r.extractOne(textDoc('f', 'x'), schema, settings({ model: 'gpt-4.1', reasoning_effort: 'high', temperature: 0.7 }));
    const [o4, gpt5, gpt41] = server.requests.map((q) => q.body);
    expect(o4).toMatchObject({ model: 'o4-mini', reasoning_effort: 'high' });
    expect(o4).not.toHaveProperty('temperature');
    expect(gpt5).toMatchObject({ reasoning_effort: 'minimal' });
    expect(gpt5).not.toHaveProperty('temperature');
    expect(gpt41).toMatchObject({ temperature: 0.7 });
    expect(gpt41).not.toHaveProperty('reasoning_effort');
  });
});

describe('concurrency', () => {
  it('keeps exactly 8 requests in flight over 30 documents against a slow server', async () => {
    server.handle = () => ({ body: completion({ invoice_number: 'X', total: 1 }), delayMs: 60 });
    const docs = Array.from({ length: 30 }, (_, i) => textDoc(`file_${i}`, `doc ${i}`));
    const results = await runner().extractAll(docs, schema, settings());
    expect(server.requests).toHaveLength(30);
    expect(server.maxInFlight).toBe(8);
    expect(results.every((r) => r.metadata?.error === undefined)).toBe(true);
  });
});

describe('failures', () => {
  it('retries a 429, then keeps the success', async () => {
    server.handle = (_, i) => (i === 0 ? apiError(429, 'Rate limit reached') : { body: completion({ invoice_number: 'B', total: 2 }) });
    const calls: string[] = [];
    const [result] = await runner().extractAll([textDoc('f', 'x')], schema, settings(), {
      onCall: (e) => calls.push(e.ok ? 'ok' : e.error!),
    });
    expect(server.requests).toHaveLength(2);
    expect(result!.prediction).toEqual({ invoice_number: 'B', total: 2 });
    expect(calls[0]).toContain('HTTP 429');
  });

  it('aborts a request at the timeout and retries it', async () => {
    server.handle = (_, i) => ({ body: completion({ invoice_number: 'C', total: 3 }), delayMs: i === 0 ? 1_000 : 0 });
    const started = Date.now();
    const [result] = await runner({ timeoutMs: 150 }).extractAll([textDoc('f', 'x')], schema, settings());
    expect(server.requests).toHaveLength(2);
    expect(result!.prediction).toEqual({ invoice_number: 'C', total: 3 });
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('retries invalid JSON content and output failing the schema', async () => {
    server.handle = (_, i) => ({
      body: completion(i === 0 ? '{"invoice_number": "D", "total": ' : i === 1 ? { invoice_number: 5, total: 'x' } : { invoice_number: 'D', total: 4 }),
    });
    const [result] = await runner().extractAll([textDoc('f', 'x')], schema, settings());
    expect(server.requests).toHaveLength(3);
    expect(result!.prediction).toEqual({ invoice_number: 'D', total: 4 });
  });

  it('does not retry a 400 and says why', async () => {
    server.handle = () => apiError(400, 'Invalid schema for response_format');
    const [result] = await runner().extractAll([textDoc('f', 'x')], schema, settings());
    expect(server.requests).toHaveLength(1);
    expect(result!.prediction).toEqual({});
    expect(result!.metadata?.error).toContain('HTTP 400');
    expect(result!.metadata?.error).toContain('Invalid schema for response_format');
  });

  it('retries a connection refused', async () => {
    const closed = new FakeOpenAIServer();
    await closed.start();
    const url = closed.baseURL;
    await closed.stop();
    const r = createExtractionRunner({ extractors: [openaiExtractor({ apiKey: 'k', baseURL: url })], retries: 1, backoffBaseMs: 1 });
    const [result] = await r.extractAll([textDoc('f', 'x')], schema, settings());
    expect(result!.metadata?.error).toMatch(/connection.*2 attempts/i);
  });

  it('keeps the other documents when one always fails', async () => {
    server.handle = (request) => {
      const text = JSON.stringify(request.body.messages[1].content);
      return text.includes('poison') ? apiError(503, 'overloaded') : { body: completion({ invoice_number: 'ok', total: 1 }) };
    };
    const docs = [textDoc('a', 'fine'), textDoc('b', 'poison'), textDoc('c', 'fine too')];
    const results = await runner().extractAll(docs, schema, settings());
    expect(server.requests).toHaveLength(2 + 3);
    expect(results[1]).toMatchObject({ prediction: {}, metadata: { error: expect.stringContaining('HTTP 503') } });
    expect(results[0]!.prediction).toEqual({ invoice_number: 'ok', total: 1 });
    expect(results[2]!.prediction).toEqual({ invoice_number: 'ok', total: 1 });
  });
});

describe('consensus and cost', () => {
  it('reconciles 3 differing outputs into majority values with likelihoods, summing the cost', async () => {
    const outputs = [
      { invoice_number: 'INV-1', total: 100 },
      { invoice_number: 'INV-1', total: 180 },
      { invoice_number: 'INV-9', total: 100 },
    ];
    server.handle = (_, i) => ({ body: completion(outputs[i % 3], { usage: { prompt_tokens: 1000, completion_tokens: 100 } }) });
    const [result] = await runner({ concurrency: 1 }).extractAll([textDoc('f', 'x')], schema, settings({ n_consensus: 3, temperature: 1 }));
    expect(server.requests).toHaveLength(3);
    expect(result!.prediction).toEqual({ invoice_number: 'INV-1', total: 100 });
    expect(result!.metadata!.likelihoods).toEqual({ invoice_number: 2 / 3, total: 2 / 3 });
    expect(result!.metadata!.consensus_details).toHaveLength(3);
    expect(result!.metadata!.consensus_details![1]).toMatchObject({ prediction: outputs[1], usage: { total_tokens: 1100 } });
    // gpt-4o-mini: 1000 * 0.15 / 1M + 100 * 0.60 / 1M = 0.00021 per run.
    expect(result!.metadata!.api_cost!.value).toBeCloseTo(3 * 0.00021, 12);
    expect(result!.metadata!.api_cost!.currency).toBe('USD');
  });

  it('gives api_cost null for a model without a known price, and uses an override table', async () => {
    server.handle = (request) => ({ body: completion({ invoice_number: 'E', total: 5 }, { model: request.body.model, usage: { prompt_tokens: 2_000_000, completion_tokens: 0 } }) });
    const [unknown] = await runner().extractAll([textDoc('f', 'x')], schema, settings({ model: 'acme-llm-7b' }));
    expect(unknown!.metadata!.api_cost).toBeNull();
    expect(unknown!.metadata!.extraction_id).toMatch(/^chatcmpl-/);
    const [priced] = await runner({}, { prices: { 'acme-llm-7b': { input: 0.5, output: 1 } } }).extractAll(
      [textDoc('f', 'x')],
      schema,
      settings({ model: 'acme-llm-7b' }),
    );
    expect(priced!.metadata!.api_cost).toEqual({ value: 1, currency: 'USD' });
  });
});

describe('registration', () => {
  it('serves local-rules offline when registered first, and every other model through the provider', async () => {
    server.handle = () => ({ body: completion({ invoice_number: 'remote', total: 1 }) });
    const r = createExtractionRunner({
      extractors: [localRulesExtractor(), openaiExtractor({ apiKey: 'k', baseURL: server.baseURL })],
    });
    expect(r.servedModels()).toEqual(['local-rules', '*']);
    const local = await r.extractOne(textDoc('f', 'Invoice Number: L-1\nTotal: 9'), schema, settings({ model: 'local-rules' }));
    expect(local.prediction).toEqual({ invoice_number: 'L-1', total: 9 });
    expect(server.requests).toHaveLength(0);
    const remote = await r.extractOne(textDoc('f', 'x'), schema, settings({ model: 'gpt-4.1' }));
    expect(remote.prediction.invoice_number).toBe('remote');
  });

  it('uses a client the host built, without its retries', async () => {
    server.handle = () => apiError(500, 'boom');
    const client = new OpenAI({ apiKey: 'host-key', baseURL: server.baseURL, maxRetries: 5 });
    const r = createExtractionRunner({ extractors: [openaiExtractor({ client })], retries: 0 });
    const [result] = await r.extractAll([textDoc('f', 'x')], schema, settings());
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer host-key');
    expect(result!.metadata?.error).toContain('HTTP 500');
  });
});
