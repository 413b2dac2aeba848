import { memoryStorage } from '@docevals/adapters/memory';
import {
  createDocevals,
  DocevalsError,
  ExtractionFailure,
  localRulesExtractor,
  type Docevals,
  type Extractor,
} from '@docevals/core';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocevalsRouter } from '../src/index.js';
import { faultyStorage, SECRET_DETAIL } from '../../../test-support/faulty-storage.js';
import { serveRouter, type ServedRouter } from './serve-router.js';
import { rejectionOf } from '../../../test-support/rejection.js';

const dataUrl = (text: string, type = 'text/plain') => `data:${type};base64,${Buffer.from(text).toString('base64')}`;

const INVOICE = dataUrl('Invoice number: INV-1\nTotal: 42\n');
const SCHEMA = {
  type: 'object',
  properties: { invoice_number: { type: 'string' }, total: { type: 'number' } },
};

/** Serves `fixed-v1`: always the same prediction, so a second model has iterations to filter on. */
const fixedExtractor: Extractor = {
  name: 'fixed',
  models: ['fixed-v1'],
  extract: async () => ({ data: { invoice_number: 'INV-1', total: 0 } }),
};

/** Serves `broken-v1`: the provider refuses every call, not worth a retry. */
const brokenExtractor: Extractor = {
  name: 'broken',
  models: ['broken-v1'],
  extract: async () => {
    throw new ExtractionFailure('the provider refused the document (HTTP 400)', { retryable: false, status: 400 });
  },
};

type ClientError = TRPCClientError<DocevalsRouter>;

/** The TRPCClientError a call failed with; fails the test when the call succeeded. */
const failure = (call: Promise<unknown>) => rejectionOf<ClientError>(call, TRPCClientError);

/** A call's raw HTTP answer (non-batched GET of a query), to check statuses and bodies on the wire. */
async function rawQuery(url: string, path: string, input: unknown, key?: string) {
  const response = await fetch(`${url}/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: key ? { 'Api-Key': key } : {},
  });
  return { status: response.status, text: await response.text() };
}

let storage: ReturnType<typeof faultyStorage>;
let docevals: Docevals;
let served: ServedRouter;

beforeAll(async () => {
  storage = faultyStorage(memoryStorage());
  docevals = createDocevals({
    storage,
    extractors: [localRulesExtractor(), fixedExtractor, brokenExtractor],
    extraction: { retries: 0 },
  });
  served = await serveRouter(docevals);
});

afterAll(async () => {
  await served.close();
});

const newEvaluation = (client = served.client('key_org_a'), name = 'Invoices') =>
  client.evals.create.mutate({
    name,
    json_schema: SCHEMA,
    documents: [{ mime_data: { filename: 'inv-1.txt', url: INVOICE }, annotation: { invoice_number: 'INV-1', total: 42 } }],
  });

describe('the docevals router over HTTP', () => {
  it('runs an evaluation end to end: documents, iterations by model, annotations that move the metrics', async () => {
    const client = served.client('key_org_a');
    const evaluation = await newEvaluation(client);
    expect(evaluation.id).toMatch(/^eval_/);
    expect(evaluation.documents).toHaveLength(1);
    const [document] = evaluation.documents;
    expect(document!.mime_data).toEqual({ filename: 'inv-1.txt', url: INVOICE });
    expect(evaluation.schema_data_id).toEqual(expect.any(String));

    const local = await client.evals.iterations.create.mutate({
      evaluation_id: evaluation.id,
      inference_settings: { model: 'local-rules' },
    });
    expect(local.id).toMatch(/^eval_iter_/);
    expect(local.inference_settings).toMatchObject({ model: 'local-rules', temperature: 0, modality: 'native', n_consensus: 1 });
    expect(local.predictions).toEqual([
      expect.objectContaining({ document_id: document!.id, prediction: { invoice_number: 'INV-1', total: 42 } }),
    ]);
    expect(local.metric_results.mean_similarity).toBe(1);

    const fixed = await client.evals.iterations.create.mutate({
      evaluation_id: evaluation.id,
      inference_settings: { model: 'fixed-v1' },
    });
    expect(fixed.metric_results.mean_similarity).toBeLessThan(1);

    const all = await client.evals.iterations.list.query({ evaluation_id: evaluation.id });
    expect(all.data.map((it) => it.id)).toEqual([local.id, fixed.id]);
    const byModel = await client.evals.iterations.list.query({ evaluation_id: evaluation.id, model: 'local-rules' });
    expect(byModel.data.map((it) => it.id)).toEqual([local.id]);

    const updated = await client.evals.documents.update.mutate({
      evaluation_id: evaluation.id,
      document_id: document!.id,
      annotation: { invoice_number: 'INV-1', total: 0 },
    });
    expect(updated.annotation).toEqual({ invoice_number: 'INV-1', total: 0 });
    const [localAfter, fixedAfter] = await Promise.all([
      client.evals.iterations.get.query({ evaluation_id: evaluation.id, iteration_id: local.id }),
      client.evals.iterations.get.query({ evaluation_id: evaluation.id, iteration_id: fixed.id }),
    ]);
    expect(localAfter.metric_results.mean_similarity).toBeLessThan(1);
    expect(fixedAfter.metric_results.mean_similarity).toBe(1);

    const rerun = await client.evals.iterations.process.mutate({ evaluation_id: evaluation.id, iteration_id: local.id });
    expect(rerun.id).toBe(local.id);

    const listed = await client.evals.list.query();
    expect(listed.data.map((e) => e.id)).toContain(evaluation.id);
    expect(Object.keys(listed.list_metadata).sort()).toEqual(['after', 'before']);
    const renamed = await client.evals.update.mutate({ evaluation_id: evaluation.id, name: 'Invoices 2026' });
    expect(renamed.name).toBe('Invoices 2026');

    const added = await client.evals.documents.add.mutate({
      evaluation_id: evaluation.id,
      mime_data: { filename: 'inv-2.txt', url: dataUrl('Invoice number: INV-2\nTotal: 7\n') },
      annotation: { invoice_number: 'INV-2', total: 7 },
    });
    const documents = await client.evals.documents.list.query({ evaluation_id: evaluation.id });
    expect(documents.data.map((d) => d.id)).toEqual([document!.id, added.id]);
    expect(await client.evals.documents.get.query({ evaluation_id: evaluation.id, document_id: added.id })).toEqual(added);
    expect(await client.evals.documents.delete.mutate({ evaluation_id: evaluation.id, document_id: added.id })).toEqual({
      id: added.id,
      deleted: true,
      success: true,
    });
    expect(await client.evals.iterations.delete.mutate({ evaluation_id: evaluation.id, iteration_id: fixed.id })).toEqual({
      id: fixed.id,
      deleted: true,
      success: true,
    });
    expect(await client.evals.delete.mutate({ evaluation_id: evaluation.id })).toEqual({ id: evaluation.id, deleted: true, success: true });
  });

  it('creates, updates, lists and submits to processors', async () => {
    const client = served.client('key_org_a');
    const processor = await client.processors.create.mutate({ name: 'Invoice reader', model: 'local-rules', json_schema: SCHEMA });
    expect(processor).toMatchObject({ object: 'processor', organization_id: 'org_a', temperature: 0, browser_canvas: 'A4' });

    const updated = await client.processors.update.mutate({ processor_id: processor.id, temperature: 0.5 });
    expect(updated).toMatchObject({ id: processor.id, name: 'Invoice reader', temperature: 0.5 });
    expect(await client.processors.get.query({ processor_id: processor.id })).toEqual(updated);
    const listed = await client.processors.list.query({ model: 'local-rules' });
    expect(listed.data.map((p) => p.id)).toContain(processor.id);

    const submitted = await client.processors.submit.mutate({
      processor_id: processor.id,
      document: { filename: 'inv-1.txt', url: INVOICE },
    });
    expect(submitted.prediction).toEqual({ invoice_number: 'INV-1', total: 42 });

    expect(await client.processors.delete.mutate({ processor_id: processor.id })).toEqual({ id: processor.id, deleted: true, success: true });
  });

  it('accepts the key as "Authorization: Bearer" too', async () => {
    const listed = await served.client('key_org_b', 'Authorization').evals.list.query({ limit: 1 });
    expect(listed.data).toEqual(expect.any(Array));
  });
});

describe('errors', () => {
  it('answers UNAUTHORIZED without a key or with an unknown one, before looking at the input', async () => {
    const how = 'send it as "Api-Key: <key>" or "Authorization: Bearer <key>"';
    const cases = [
      { client: served.client(), message: `No API key was sent: ${how}.` },
      { client: served.client('key_nobody'), message: `The API key sent is not valid: check it (${how}).` },
      { client: served.client('key_nobody', 'Authorization'), message: `The API key sent is not valid: check it (${how}).` },
    ];
    for (const { client, message } of cases) {
      const error = await failure(client.evals.create.mutate({ name: '' } as never));
      expect(error.data).toMatchObject({ code: 'UNAUTHORIZED', docevalsCode: 'unauthorized', httpStatus: 401, path: 'evals.create' });
      expect(error.message).toBe(message); // the REST API's words
      expect(error.data?.issues).toBeUndefined();
    }
    const raw = await rawQuery(served.url, 'evals.list', {});
    expect(raw.status).toBe(401);
  });

  it("answers NOT_FOUND for an unknown object and for another organization's, alike", async () => {
    const evaluation = await newEvaluation();
    const unknown = await failure(served.client('key_org_a').evals.get.query({ evaluation_id: 'eval_nope' }));
    expect(unknown.data).toMatchObject({ code: 'NOT_FOUND', docevalsCode: 'not_found', httpStatus: 404 });

    const other = await failure(served.client('key_org_b').evals.get.query({ evaluation_id: evaluation.id }));
    expect(other.data).toMatchObject({ code: 'NOT_FOUND', docevalsCode: 'not_found', httpStatus: 404 });
    expect(other.message).toBe(unknown.message.replace('eval_nope', evaluation.id));
    const deleting = await failure(served.client('key_org_b').evals.delete.mutate({ evaluation_id: evaluation.id }));
    expect(deleting.data?.docevalsCode).toBe('not_found');
    expect((await served.client('key_org_a').evals.get.query({ evaluation_id: evaluation.id })).id).toBe(evaluation.id);
  });

  it("reports tRPC's input validation exactly as the core reports its own: BAD_REQUEST with dotted issue paths", async () => {
    const input = {
      evaluation_id: 'eval_x',
      inference_settings: { model: 'local-rules', temperature: 5, n_consensus: 0 },
    };
    const error = await failure(served.client('key_org_a').evals.iterations.create.mutate(input));
    expect(error.data).toMatchObject({ code: 'BAD_REQUEST', docevalsCode: 'validation_error', httpStatus: 400, path: 'evals.iterations.create' });
    expect(error.data?.issues?.map((issue) => issue.path)).toEqual([
      'inference_settings.temperature',
      'inference_settings.n_consensus',
    ]);

    const direct = await docevals.evals.iterations.create('org_a', input).catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(DocevalsError);
    expect(error.data?.issues).toEqual((direct as DocevalsError).issues);
    expect(error.message).toBe((direct as DocevalsError).message);
  });

  it("passes the core's own validation issues through (a malformed data URL, a model nobody serves)", async () => {
    const client = served.client('key_org_a');
    const malformed = await failure(
      client.evals.create.mutate({
        name: 'Broken',
        json_schema: SCHEMA,
        documents: [{ mime_data: { filename: 'x.txt', url: 'not a data url' } }],
      }),
    );
    expect(malformed.data).toMatchObject({ code: 'BAD_REQUEST', docevalsCode: 'validation_error', httpStatus: 400 });
    expect(malformed.data?.issues?.[0]?.path).toMatch(/^documents\.0\./);

    const evaluation = await newEvaluation(client);
    const unserved = await failure(
      client.evals.iterations.create.mutate({ evaluation_id: evaluation.id, inference_settings: { model: 'gpt-nope' } }),
    );
    expect(unserved.data).toMatchObject({ code: 'BAD_REQUEST', docevalsCode: 'validation_error', httpStatus: 400 });
    expect(unserved.message).toContain('gpt-nope');
  });

  it('answers CONFLICT for a taken id and for a schema structure change once iterations exist', async () => {
    const client = served.client('key_org_a');
    const evaluation = await newEvaluation(client);
    const taken = await failure(client.evals.create.mutate({ id: evaluation.id, name: 'Again', json_schema: SCHEMA }));
    expect(taken.data).toMatchObject({ code: 'CONFLICT', docevalsCode: 'conflict', httpStatus: 409 });

    await client.evals.iterations.create.mutate({ evaluation_id: evaluation.id, inference_settings: { model: 'local-rules' } });
    const changed = await failure(
      client.evals.update.mutate({
        evaluation_id: evaluation.id,
        json_schema: { type: 'object', properties: { invoice_number: { type: 'string' } } },
      }),
    );
    expect(changed.data).toMatchObject({ code: 'CONFLICT', docevalsCode: 'conflict', httpStatus: 409 });
    expect(changed.message).toContain(evaluation.schema_data_id);
  });

  it("answers BAD_GATEWAY when a processor's extraction fails", async () => {
    const client = served.client('key_org_a');
    const processor = await client.processors.create.mutate({ name: 'Broken', model: 'broken-v1', json_schema: SCHEMA });
    const error = await failure(
      client.processors.submit.mutate({ processor_id: processor.id, document: { filename: 'inv-1.txt', url: INVOICE } }),
    );
    expect(error.data).toMatchObject({ code: 'BAD_GATEWAY', docevalsCode: 'extractor_error', httpStatus: 502, path: 'processors.submit' });
  });

  it('answers BAD_GATEWAY naming the kept iteration when every document of a run failed; cancel answers the summary', async () => {
    const client = served.client('key_org_a');
    const evaluation = await newEvaluation(client);
    const error = await failure(
      client.evals.iterations.create.mutate({ evaluation_id: evaluation.id, inference_settings: { model: 'broken-v1' } }),
    );
    expect(error.data).toMatchObject({ code: 'BAD_GATEWAY', docevalsCode: 'extractor_error', httpStatus: 502, path: 'evals.iterations.create' });
    const iterationId = error.data!.iteration_id!;
    const summary = await client.evals.iterations.getSummary.query({ evaluation_id: evaluation.id, iteration_id: iterationId });
    expect(summary).toMatchObject({ status: 'failed', progress: { total: 1, succeeded: 0, failed: 1, pending: 0 } });
    expect(summary.error).toContain('refused the document');
    // Cancelling a finished iteration changes nothing.
    const cancelled = await client.evals.iterations.cancel.mutate({ evaluation_id: evaluation.id, iteration_id: iterationId });
    expect(cancelled.status).toBe('failed');
  });

  it('answers SERVICE_UNAVAILABLE when the store is unreachable', async () => {
    storage.fault = 'unreachable';
    try {
      const error = await failure(served.client('key_org_a').evals.list.query());
      expect(error.data).toMatchObject({ code: 'SERVICE_UNAVAILABLE', docevalsCode: 'storage_error', httpStatus: 503 });
      expect((await rawQuery(served.url, 'evals.list', {}, 'key_org_a')).status).toBe(503);
    } finally {
      storage.fault = 'none';
    }
  });

  it('answers INTERNAL_SERVER_ERROR with a generic message, no internals and no stack', async () => {
    storage.fault = 'bug';
    try {
      const error = await failure(served.client('key_org_a').evals.get.query({ evaluation_id: 'eval_x' }));
      expect(error.data).toEqual({ code: 'INTERNAL_SERVER_ERROR', docevalsCode: 'internal_error', httpStatus: 500, path: 'evals.get' });
      expect(error.message).toBe('The server failed unexpectedly. The failure was logged; retry later or report it.');

      const raw = await rawQuery(served.url, 'evals.get', { evaluation_id: 'eval_x' }, 'key_org_a');
      expect(raw.status).toBe(500);
      expect(raw.text).not.toContain(SECRET_DETAIL);
      expect(raw.text).not.toContain('TypeError');
      expect(raw.text).not.toContain('stack');
      expect(raw.text).not.toContain('.ts:');
    } finally {
      storage.fault = 'none';
    }
  });

  it('never sends a stack, for client errors either', async () => {
    const raw = await rawQuery(served.url, 'evals.get', { evaluation_id: '' }, 'key_org_a');
    expect(raw.status).toBe(400);
    const body = JSON.parse(raw.text) as { error: { data: Record<string, unknown> } };
    expect(body.error.data).toEqual({
      code: 'BAD_REQUEST',
      docevalsCode: 'validation_error',
      httpStatus: 400,
      path: 'evals.get',
      issues: [{ path: 'evaluation_id', message: expect.any(String) }],
    });
  });

  it("maps tRPC's own refusals too: unknown procedure, malformed JSON, wrong method, body over the host's limit", async () => {
    const unknown = await rawQuery(served.url, 'evals.nope', {}, 'key_org_a');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).error.data.docevalsCode).toBe('not_found');

    const malformed = await fetch(`${served.url}/evals.create`, {
      method: 'POST',
      headers: { 'Api-Key': 'key_org_a', 'Content-Type': 'application/json' },
      body: '{"name": ',
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.data.docevalsCode).toBe('bad_request');

    const wrongMethod = await rawQuery(served.url, 'evals.create', {}, 'key_org_a');
    expect(wrongMethod.status).toBe(405);
    expect(JSON.parse(wrongMethod.text).error.data.docevalsCode).toBe('method_not_allowed');

    const small = await serveRouter(docevals, { maxBodySize: 1024 });
    try {
      const error = await failure(
        small.client('key_org_a').evals.create.mutate({
          name: 'Too big',
          json_schema: SCHEMA,
          documents: [{ mime_data: { filename: 'big.txt', url: dataUrl('x'.repeat(4096)) } }],
        }),
      );
      expect(error.data).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', docevalsCode: 'payload_too_large', httpStatus: 413 });
    } finally {
      await small.close();
    }
  });
});
