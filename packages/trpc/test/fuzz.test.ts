/**
 * Property test (issue 13) over tRPC: random inputs, JSON Schemas, annotations and raw bytes for every procedure of
 * the router behind `createDocevalsFetchHandler` on 127.0.0.1. No answer is a 500 (an extractor's failure is the
 * documented 502), only documented failures reach `onError`, and the server keeps answering. Bounded: at most 200
 * runs and 2 s per procedure.
 */
import fc from 'fast-check';
import { isDocevalsError } from '@docevals/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyArbitrary, rawBodyArbitrary } from '../../../test-support/fuzz-arbitraries.js';
import { serve, type Served } from './serve-fetch-handler.js';

const RUNS = 200;
const runOptions = { numRuns: RUNS, interruptAfterTimeLimit: 2_000, markInterruptAsFailure: false };

const QUERIES = [
  'evals.get', 'evals.list', 'evals.documents.list', 'evals.documents.get', 'evals.iterations.list', 'evals.iterations.get',
  'evals.iterations.export', 'processors.get', 'processors.list',
];
const MUTATIONS = [
  'evals.create', 'evals.update', 'evals.documents.add', 'evals.documents.update', 'evals.iterations.create',
  'evals.iterations.process', 'evals.documents.import', 'processors.create', 'processors.update', 'processors.submit',
  'evals.documents.delete', 'evals.iterations.delete', 'processors.delete', 'evals.delete',
];

let served: Served;
let ids: Record<string, string>;
beforeAll(async () => {
  served = await serve();
  const url = `data:text/plain;base64,${Buffer.from('Invoice number: INV-1\nTotal: 42\n').toString('base64')}`;
  const evaluation = await served.docevals.evals.create('org_a', {
    name: 'fuzz',
    json_schema: { type: 'object', properties: { invoice_number: { type: 'string' } } },
    documents: [{ mime_data: { filename: 'a.txt', url }, annotation: { invoice_number: 'INV-1' } }],
    default_inference_settings: { model: 'local-rules' },
  });
  const iteration = await served.docevals.evals.iterations.create('org_a', { evaluation_id: evaluation.id });
  const processor = await served.docevals.processors.create('org_a', { name: 'p', model: 'local-rules', json_schema: { type: 'object' } });
  ids = { evaluation_id: evaluation.id, document_id: evaluation.documents[0]!.id, iteration_id: iteration.id, processor_id: processor.id };
});
afterAll(() => served.close());

async function send(path: string, init: { body?: BodyInit; query?: string; key?: string }) {
  const response = await fetch(`${served.url}/${path}${init.query === undefined ? '' : `?input=${encodeURIComponent(init.query)}`}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: { 'api-key': init.key ?? 'key_a', 'content-type': 'application/json' },
    body: init.body,
  });
  const text = await response.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, json };
}

function expectDocumented(r: { status: number; json: any }, what: string): void {
  if (r.status === 502) expect(r.json?.error?.data?.code, what).toBe('extractor_error');
  else expect(r.status, `${what}: ${JSON.stringify(r.json).slice(0, 300)}`).toBeLessThan(500);
}

/** The input with the seeded ids mixed in half of the time, so procedures get past "not found". */
const inputArbitrary = fc.tuple(bodyArbitrary, fc.boolean()).map(([body, withIds]) =>
  withIds && typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...body, ...ids } : body,
);

describe('fuzz: every tRPC procedure answers random input with a documented status', () => {
  it('random inputs', async () => {
    for (const path of [...QUERIES, ...MUTATIONS]) {
      const isQuery = QUERIES.includes(path);
      await fc.assert(
        fc.asyncProperty(inputArbitrary, fc.boolean(), async (input, asB) => {
          const text = JSON.stringify(input);
          const r = await send(path, { ...(isQuery ? { query: text } : { body: text }), ...(asB ? { key: 'key_b' } : {}) });
          expectDocumented(r, path);
        }),
        runOptions,
      );
    }
  }, 180_000);

  it('imports of random CSV and JSONL content, and exports in every format (issue 26)', async () => {
    const line = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom('document_id,annotation.total', 'document_id,annotation.items.99999.sku', '=1+1,@SUM(A1)'),
      fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify({ document_id: ids.document_id, annotation: value })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('csv', 'jsonl'), fc.array(line, { maxLength: 20 }), fc.boolean(), async (format, lines, validate) => {
        const body = JSON.stringify({ evaluation_id: ids.evaluation_id, format, content: lines.join('\n'), validate });
        expectDocumented(await send('evals.documents.import', { body }), `import ${format}`);
      }),
      runOptions,
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('csv', 'jsonl', 'json', 'xlsx', ''), fc.boolean(), fc.boolean(), async (format, raw, withIds) => {
        const input = { ...(withIds ? ids : { evaluation_id: 'eval_x', iteration_id: 'iter_x' }), format, raw };
        expectDocumented(await send('evals.iterations.export', { query: JSON.stringify(input) }), `export ${format}`);
      }),
      { ...runOptions, numRuns: 50 },
    );
  }, 120_000);

  it('random raw bytes as bodies, batched too', async () => {
    for (const path of ['evals.create', 'processors.create', 'evals.documents.add', 'evals.create,processors.create']) {
      const batch = path.includes(',') ? '?batch=1' : '';
      await fc.assert(
        fc.asyncProperty(rawBodyArbitrary, async (bytes) => {
          const r = await send(`${path}${batch}`, { body: Buffer.from(bytes) });
          expectDocumented(r, path);
        }),
        { ...runOptions, numRuns: 100 },
      );
    }
  }, 120_000);

  afterAll(async () => {
    for (const error of served.errors) {
      expect(isDocevalsError(error) && ['extractor_error', 'storage_error'].includes(error.code), String(error)).toBe(true);
    }
    expect((await send('evals.list', { query: '{}' })).status).toBe(200);
  });
});
