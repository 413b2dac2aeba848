import {
  createExtractionRunner,
  DocevalsError,
  ExtractionFailure,
  isDocevalsError,
  type ExtractionCallEvent,
} from '@docevals/core';
import { describe, expect, it } from 'vitest';
import { documents, invoiceSchema, ScriptedExtractor, settings, textDocument } from './runner-support.js';

const fast = { backoffBaseMs: 1, backoffMaxMs: 5 };

describe('routing', () => {
  it('routes a model to the first extractor whose entry matches: exact, glob or RegExp', async () => {
    const exact = new ScriptedExtractor(['gpt-4o'], () => ({ data: { invoice_number: 'exact', total: 1 } }));
    const glob = new ScriptedExtractor(['gpt-*'], () => ({ data: { invoice_number: 'glob', total: 1 } }));
    const regex = new ScriptedExtractor([/^claude-\d/], () => ({ data: { invoice_number: 'regex', total: 1 } }));
    const runner = createExtractionRunner({ extractors: [exact, glob, regex] });
    const pick = async (model: string) =>
      (await runner.extractOne(textDocument('f', 'x'), invoiceSchema, settings({ model }))).prediction.invoice_number;
    expect(await pick('gpt-4o')).toBe('exact');
    expect(await pick('gpt-4.1-mini')).toBe('glob');
    expect(await pick('claude-3-opus')).toBe('regex');
    expect(runner.servedModels()).toEqual(['gpt-4o', 'gpt-*', '/^claude-\\d/']);
  });

  it('refuses a model no extractor serves with a 422 naming it and the served models, never a fallback', async () => {
    const extractor = new ScriptedExtractor(['local-rules', 'gpt-*'], () => ({ data: {} }));
    const runner = createExtractionRunner({ extractors: [extractor] });
    let error: unknown;
    try {
      runner.assertServed('mistral-large', 'inference_settings.model');
    } catch (e) {
      error = e;
    }
    expect(isDocevalsError(error) && error.code).toBe('validation_error');
    expect((error as DocevalsError).message).toContain('"mistral-large"');
    expect((error as DocevalsError).message).toContain('"local-rules", "gpt-*"');
    expect((error as DocevalsError).issues).toEqual([
      { path: 'inference_settings.model', message: expect.stringContaining('mistral-large') },
    ]);
    await expect(runner.extractAll(documents(1), invoiceSchema, settings({ model: 'mistral-large' }))).rejects.toMatchObject({
      code: 'validation_error',
    });
    expect(extractor.requests).toHaveLength(0);
  });

  it('refuses an invalid JSON schema before calling anything', async () => {
    const extractor = new ScriptedExtractor(['*'], () => ({ data: {} }));
    const runner = createExtractionRunner({ extractors: [extractor] });
    await expect(runner.extractAll(documents(2), { type: 'nope' }, settings())).rejects.toMatchObject({
      code: 'validation_error',
    });
    expect(extractor.requests).toHaveLength(0);
  });
});

describe('concurrency', () => {
  it('keeps exactly `concurrency` calls in flight while there is work, documents and consensus runs together', async () => {
    const extractor = new ScriptedExtractor(['*'], () => ({ data: { invoice_number: 'A', total: 1 } }), 15);
    const runner = createExtractionRunner({ extractors: [extractor], concurrency: 5 });
    const results = await runner.extractAll(documents(12), invoiceSchema, settings({ n_consensus: 3 }));
    expect(extractor.requests).toHaveLength(36);
    expect(extractor.maxInFlight).toBe(5);
    expect(results).toHaveLength(12);
  });

  it('defaults to 8 in flight', async () => {
    const extractor = new ScriptedExtractor(['*'], () => ({ data: { invoice_number: 'A', total: 1 } }), 10);
    const runner = createExtractionRunner({ extractors: [extractor] });
    await runner.extractAll(documents(30), invoiceSchema, settings());
    expect(extractor.maxInFlight).toBe(8);
  });

  it('returns one prediction per document in the order given, whatever order the calls finish in', async () => {
    const extractor = new ScriptedExtractor(['*'], async (request) => {
      const index = Number(request.document.id.split('_')[1]);
      await new Promise((r) => setTimeout(r, (10 - index) * 3));
      return { data: { invoice_number: request.document.id, total: index } };
    });
    const runner = createExtractionRunner({ extractors: [extractor], concurrency: 10 });
    const results = await runner.extractAll(documents(10), invoiceSchema, settings());
    expect(results.map((r) => r.prediction.invoice_number)).toEqual(documents(10).map((d) => d.id));
  });
});

describe('timeouts and retries', () => {
  it('retries a retryable failure (429) and keeps the success', async () => {
    const extractor = new ScriptedExtractor(['*'], (_, call) => {
      if (call === 0) throw new ExtractionFailure('rate limited', { retryable: true, status: 429 });
      return { data: { invoice_number: 'INV-1', total: 5 } };
    });
    const events: ExtractionCallEvent[] = [];
    const runner = createExtractionRunner({ extractors: [extractor], ...fast });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings(), { onCall: (e) => events.push(e) });
    expect(result!.prediction).toEqual({ invoice_number: 'INV-1', total: 5 });
    expect(result!.metadata?.error).toBeUndefined();
    expect(events.map((e) => [e.attempt, e.ok, e.will_retry])).toEqual([
      [1, false, true],
      [2, true, undefined],
    ]);
    expect(events[0]!.error).toContain('429');
  });

  it('aborts a call at the timeout through the signal, and retries it', async () => {
    let aborted = 0;
    const extractor = new ScriptedExtractor(['*'], async (request, call) => {
      if (call === 0) {
        await new Promise((_, reject) =>
          request.signal.addEventListener('abort', () => {
            aborted++;
            reject(request.signal.reason);
          }),
        );
      }
      return { data: { invoice_number: 'late', total: 1 } };
    });
    const runner = createExtractionRunner({ extractors: [extractor], timeoutMs: 30, ...fast });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings());
    expect(aborted).toBe(1);
    expect(extractor.requests[0]!.signal.aborted).toBe(true);
    expect(result!.prediction).toEqual({ invoice_number: 'late', total: 1 });
  });

  it('times out an extractor that ignores the signal', async () => {
    const extractor = new ScriptedExtractor(['*'], () => new Promise(() => {}));
    const runner = createExtractionRunner({ extractors: [extractor], timeoutMs: 20, retries: 1, ...fast });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings());
    expect(extractor.requests).toHaveLength(2);
    expect(result!.prediction).toEqual({});
    expect(result!.metadata?.error).toMatch(/timed out after 20 ms.*2 attempts/);
  });

  it('retries output that fails the JSON schema, then keeps the last one as the prediction (malformed is still output)', async () => {
    const extractor = new ScriptedExtractor(['*'], () => ({ data: { invoice_number: 7, total: 'x' } }));
    const calls: Array<{ ok: boolean; error?: string; will_retry?: boolean }> = [];
    const runner = createExtractionRunner({ extractors: [extractor], retries: 2, ...fast });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings(), { onCall: (e) => calls.push(e) });
    expect(extractor.requests).toHaveLength(3);
    expect(result!.prediction).toEqual({ invoice_number: 7, total: 'x' });
    expect(result!.metadata?.error).toBeUndefined();
    expect(calls.map((c) => c.will_retry)).toEqual([true, true, false]);
    expect(calls[0]!.error).toContain('/invoice_number must be string');
  });

  it('takes a later attempt that matches the schema over a malformed one', async () => {
    const extractor = new ScriptedExtractor(['*'], (_, call) => ({
      data: call === 0 ? { invoice_number: 7 } : { invoice_number: 'B', total: 2 },
    }));
    const runner = createExtractionRunner({ extractors: [extractor], retries: 2, ...fast });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings());
    expect(extractor.requests).toHaveLength(2);
    expect(result!.prediction).toEqual({ invoice_number: 'B', total: 2 });
  });

  it('retries output that is not a JSON object', async () => {
    const extractor = new ScriptedExtractor(['*'], (_, call) => ({
      data: call === 0 ? 'not json' : { invoice_number: 'B', total: 2 },
    }));
    const runner = createExtractionRunner({ extractors: [extractor], ...fast });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings());
    expect(result!.prediction).toEqual({ invoice_number: 'B', total: 2 });
  });

  it('stops at once on a failure that is not retryable', async () => {
    const extractor = new ScriptedExtractor(['*'], () => {
      throw new ExtractionFailure('invalid api key', { retryable: false, status: 401 });
    });
    const runner = createExtractionRunner({ extractors: [extractor], ...fast });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings());
    expect(extractor.requests).toHaveLength(1);
    expect(result!.metadata?.error).toContain('invalid api key');
  });

  it('does not retry an error that is not an ExtractionFailure', async () => {
    const extractor = new ScriptedExtractor(['*'], () => {
      throw new TypeError('boom');
    });
    const runner = createExtractionRunner({ extractors: [extractor], ...fast });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings());
    expect(extractor.requests).toHaveLength(1);
    expect(result!.metadata?.error).toContain('boom');
  });

  it('keeps the other documents when one always fails', async () => {
    const extractor = new ScriptedExtractor(['*'], (request) => {
      if (request.document.id === 'file_2') throw new ExtractionFailure('HTTP 500', { retryable: true, status: 500 });
      return { data: { invoice_number: request.document.id, total: 1 } };
    });
    const runner = createExtractionRunner({ extractors: [extractor], ...fast });
    const results = await runner.extractAll(documents(5), invoiceSchema, settings());
    expect(extractor.callsFor('file_2')).toBe(3);
    expect(results[2]).toMatchObject({ prediction: {}, metadata: { error: expect.stringContaining('HTTP 500') } });
    for (const i of [0, 1, 3, 4]) {
      expect(results[i]!.prediction).toEqual({ invoice_number: `file_${i}`, total: 1 });
      expect(results[i]!.metadata?.error).toBeUndefined();
    }
  });

  it('extractOne raises extractor_error with the reason', async () => {
    const extractor = new ScriptedExtractor(['*'], () => {
      throw new ExtractionFailure('the provider refused the document', { retryable: false, status: 400 });
    });
    const runner = createExtractionRunner({ extractors: [extractor] });
    await expect(runner.extractOne(textDocument('f', 'x'), invoiceSchema, settings())).rejects.toMatchObject({
      code: 'extractor_error',
      message: expect.stringContaining('the provider refused the document'),
    });
  });

  it('refuses nonsensical options', () => {
    expect(() => createExtractionRunner({ extractors: [], concurrency: 0 })).toThrow(/concurrency/);
  });
});

describe('metadata', () => {
  it('n = 1: passes through cost, likelihoods and extraction id; likelihoods null when the extractor gave none', async () => {
    const withLikelihoods = new ScriptedExtractor(['a'], () => ({
      data: { invoice_number: 'X', total: 1 },
      api_cost: { value: 0.002, currency: 'USD' },
      likelihoods: { invoice_number: 0.9, total: 0.8 },
      extraction_id: 'chatcmpl-1',
    }));
    const plain = new ScriptedExtractor(['b'], () => ({ data: { invoice_number: 'X', total: 1 } }));
    const runner = createExtractionRunner({ extractors: [withLikelihoods, plain] });
    const [a] = await runner.extractAll(documents(1), invoiceSchema, settings({ model: 'a' }));
    expect(a!.metadata).toMatchObject({
      extraction_id: 'chatcmpl-1',
      api_cost: { value: 0.002, currency: 'USD' },
      likelihoods: { invoice_number: 0.9, total: 0.8 },
    });
    const [b] = await runner.extractAll(documents(1), invoiceSchema, settings({ model: 'b' }));
    expect(b!.metadata).toMatchObject({ likelihoods: null, api_cost: null, extraction_id: expect.stringMatching(/^extr_/) });
  });

  it('n > 1: reconciles the runs, lists every run, sums known costs, and failed runs do not vote', async () => {
    const outputs = [
      { invoice_number: 'INV-1', total: 10 },
      { invoice_number: 'INV-1', total: 12 },
      null,
      { invoice_number: 'INV-7', total: 10 },
    ];
    const extractor = new ScriptedExtractor(['*'], (_, call) => {
      const data = outputs[call % 4];
      if (data === null) throw new ExtractionFailure('bad gateway', { retryable: false, status: 502 });
      return {
        data,
        api_cost: { value: 0.5, currency: 'USD' },
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      };
    });
    const runner = createExtractionRunner({ extractors: [extractor], concurrency: 1 });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings({ n_consensus: 4 }));
    expect(result!.prediction).toEqual({ invoice_number: 'INV-1', total: 10 });
    expect(result!.metadata!.likelihoods).toEqual({ invoice_number: 2 / 3, total: 2 / 3 });
    expect(result!.metadata!.api_cost).toEqual({ value: 1.5, currency: 'USD' });
    expect(result!.metadata!.extraction_id).toMatch(/^extr_/);
    const details = result!.metadata!.consensus_details!;
    expect(details).toHaveLength(4);
    expect(details[0]).toEqual({ prediction: outputs[0], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    expect(details[2]).toEqual({ prediction: null, error: expect.stringContaining('bad gateway') });
  });

  it('n > 1 with every run failed: empty prediction and the reasons', async () => {
    const extractor = new ScriptedExtractor(['*'], () => {
      throw new ExtractionFailure('nope', { retryable: false });
    });
    const runner = createExtractionRunner({ extractors: [extractor] });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings({ n_consensus: 2 }));
    expect(result!.prediction).toEqual({});
    expect(result!.metadata).toMatchObject({
      api_cost: null,
      likelihoods: null,
      error: expect.stringContaining('every one of the 2 consensus runs failed'),
    });
  });

  it('n > 1 whose reconciled prediction is {}: likelihoods is the object {}, not a number', async () => {
    const extractor = new ScriptedExtractor(['*'], () => ({ data: {} }));
    const runner = createExtractionRunner({ extractors: [extractor] });
    const [result] = await runner.extractAll(documents(1), { type: 'object', properties: { total: { type: 'number' } } }, settings({ n_consensus: 3 }));
    expect(result!.prediction).toEqual({});
    expect(result!.metadata!.likelihoods).toEqual({});
    expect(result!.metadata!.consensus_details).toHaveLength(3);
  });

  it('n > 1 and all costs unknown: api_cost null', async () => {
    const extractor = new ScriptedExtractor(['*'], () => ({ data: { invoice_number: 'A', total: 1 }, api_cost: null }));
    const runner = createExtractionRunner({ extractors: [extractor] });
    const [result] = await runner.extractAll(documents(1), invoiceSchema, settings({ n_consensus: 3 }));
    expect(result!.metadata!.api_cost).toBeNull();
    expect(result!.metadata!.likelihoods).toEqual({ invoice_number: 1, total: 1 });
  });
});
