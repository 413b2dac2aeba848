import { describe, expect, it } from 'vitest';
import { DocevalsError, type Docevals } from '@docevals/core';
import { createInvoices, dataUrl, invoiceDocument, invoiceSchema, makeService, ORG, OTHER_ORG } from './fixtures.js';
import { rejectionOf } from '../../../../test-support/rejection.js';

const failure = (promise: Promise<unknown>) => rejectionOf(promise, DocevalsError);

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < levels - 1; i++) value = { a: value };
  return value;
}

async function seeded(docevals: Docevals) {
  return createInvoices(docevals, {
    name: 'seed',
    documents: [invoiceDocument('a.json', { total: 1 }, { total: 1 })],
  });
}

/** A snapshot of everything the organization stores, to prove a failed request changed nothing. */
async function snapshot(docevals: Docevals) {
  const evals = await docevals.evals.list(ORG, { limit: 100 });
  const processors = await docevals.processors.list(ORG, { limit: 100 });
  return JSON.stringify({ evals, processors });
}

describe('validation: every rule has its code and path, and changes nothing', () => {
  const cases: Array<{
    name: string;
    /** Creates what the case needs before the snapshot that must stay unchanged. */
    prepare?: (d: Docevals, evaluationId: string) => Promise<string>;
    run: (d: Docevals, evaluationId: string, documentId: string, prepared: string) => Promise<unknown>;
    code: string;
    path?: string;
    message?: RegExp;
  }> = [
    { name: 'a missing name', run: (d) => d.evals.create(ORG, { json_schema: invoiceSchema } as never), code: 'validation_error', path: 'name' },
    { name: 'a schema that does not compile', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: { type: 'objekt' } }), code: 'validation_error', path: 'json_schema', message: /JSON Schema/ },
    { name: 'a json_schema that is not an object', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: [] as never }), code: 'validation_error', path: 'json_schema' },
    { name: 'a malformed data URL', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, documents: [{ mime_data: { filename: 'a', url: 'http://example.com/a.pdf' } }] }), code: 'validation_error', path: 'documents.0.mime_data.url' },
    { name: 'base64 that is not base64', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, documents: [{ mime_data: { filename: 'a', url: 'data:text/plain;base64,@@@@' } }] }), code: 'validation_error', path: 'documents.0.mime_data.url' },
    { name: 'an id that is not the content hash', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, documents: [{ id: 'file_0000000000000000', mime_data: { filename: 'a', url: dataUrl('{}') } }] }), code: 'validation_error', path: 'documents.0.id' },
    { name: 'the same file twice', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, documents: [invoiceDocument('a', { a: 1 }, {}), invoiceDocument('b', { a: 1 }, {})] }), code: 'validation_error', path: 'documents.1' },
    { name: 'a reference to an unknown file', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, documents: [{ mime_data: { filename: 'a', file_id: 'file_ffffffffffffffff' } }] }), code: 'validation_error', path: 'documents.0.mime_data.file_id' },
    { name: 'a document with neither content nor reference', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, documents: [{ mime_data: { filename: 'a' } }] }), code: 'validation_error', path: 'documents.0.mime_data' },
    { name: 'a temperature out of range', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, default_inference_settings: { temperature: 3 } }), code: 'validation_error', path: 'default_inference_settings.temperature' },
    { name: 'an unknown modality', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, default_inference_settings: { modality: 'video' as never } }), code: 'validation_error', path: 'default_inference_settings.modality' },
    { name: 'n_consensus above 16', run: (d) => d.processors.create(ORG, { name: 'p', model: 'json-file', json_schema: invoiceSchema, n_consensus: 17 }), code: 'validation_error', path: 'n_consensus' },
    { name: 'a dpi that is not an integer', run: (d) => d.processors.create(ORG, { name: 'p', model: 'json-file', json_schema: invoiceSchema, image_resolution_dpi: 96.5 }), code: 'validation_error', path: 'image_resolution_dpi' },
    { name: 'a client id with bad characters', run: (d) => d.evals.create(ORG, { id: 'no spaces', name: 'x', json_schema: invoiceSchema }), code: 'validation_error', path: 'id' },
    { name: 'an annotation nested 65 levels', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, documents: [invoiceDocument('a', {}, deep(65))] }), code: 'validation_error', path: 'documents.0.annotation' },
    { name: 'an annotation nested 100,000 levels', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, documents: [invoiceDocument('a', {}, deep(100_000))] }), code: 'validation_error', path: 'documents.0.annotation' },
    { name: 'NaN in an annotation', run: (d, e, doc) => d.evals.documents.update(ORG, { evaluation_id: e, document_id: doc, annotation: { total: Number.NaN } as never }), code: 'validation_error', path: 'annotation.total' },
    { name: 'an iteration without a model', prepare: async (d) => (await d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema })).id, run: (d, _e, _doc, other) => d.evals.iterations.create(ORG, { evaluation_id: other, inference_settings: {} }), code: 'validation_error', path: 'inference_settings.model' },
    { name: 'a model nobody serves', run: (d, e) => d.evals.iterations.create(ORG, { evaluation_id: e, inference_settings: { model: 'gpt-unknown' } }), code: 'validation_error', path: 'inference_settings.model', message: /json-file/ },
    { name: 'an iteration schema of another structure', run: (d, e) => d.evals.iterations.create(ORG, { evaluation_id: e, json_schema: { type: 'object', properties: { other: { type: 'string' } } } }), code: 'conflict' },
    { name: 'both cursors', run: (d) => d.evals.list(ORG, { before: 'a', after: 'b' }), code: 'validation_error', path: 'before' },
    { name: 'an unknown cursor', run: (d) => d.evals.list(ORG, { after: 'eval_nope' }), code: 'validation_error', path: 'after' },
    { name: 'a limit above 100', run: (d) => d.evals.list(ORG, { limit: 101 }), code: 'validation_error', path: 'limit' },
    { name: 'a re-run naming an unknown document', prepare: async (d, e) => (await d.evals.iterations.create(ORG, { evaluation_id: e })).id, run: (d, e, _doc, it) => d.evals.iterations.process(ORG, { evaluation_id: e, iteration_id: it, document_ids: ['file_nope'] }), code: 'validation_error', path: 'document_ids.0' },
    { name: 'an imported iteration with the wrong prediction count', run: (d) => d.evals.create(ORG, { name: 'x', json_schema: invoiceSchema, documents: [invoiceDocument('a', { a: 1 }, {})], iterations: [{ inference_settings: { model: 'm' }, predictions: [] }] }), code: 'validation_error', path: 'iterations.0.predictions' },
    { name: 'a submit with a bad data URL', prepare: async (d) => (await d.processors.create(ORG, { name: 'p', model: 'json-file', json_schema: invoiceSchema })).id, run: (d, _e, _doc, p) => d.processors.submit(ORG, { processor_id: p, document: { filename: 'x', url: 'nope' } }), code: 'validation_error', path: 'document.url' },
    { name: 'another organization\'s evaluation', run: (d, e) => d.evals.get(OTHER_ORG, { evaluation_id: e }), code: 'not_found' },
    { name: 'another organization\'s document', run: (d, e, doc) => d.evals.documents.update(OTHER_ORG, { evaluation_id: e, document_id: doc, annotation: {} }), code: 'not_found' },
    { name: 'an unknown document', run: (d, e) => d.evals.documents.get(ORG, { evaluation_id: e, document_id: 'file_nope' }), code: 'not_found' },
    { name: 'no organization', run: (d, e) => d.evals.get('', { evaluation_id: e }), code: 'unauthorized' },
  ];

  for (const c of cases) {
    it(`refuses ${c.name}`, async () => {
      const docevals = makeService();
      const evaluation = await seeded(docevals);
      const prepared = c.prepare ? await c.prepare(docevals, evaluation.id) : '';
      const before = await snapshot(docevals);
      const error = await failure(c.run(docevals, evaluation.id, evaluation.documents[0]!.id, prepared));
      expect(error.code).toBe(c.code);
      // The path names the bad field: exactly, or a place inside it (the level where nesting got too deep).
      if (c.path !== undefined) {
        const paths = error.issues?.map((i) => i.path) ?? [];
        expect(paths.some((p) => p === c.path || p.startsWith(`${c.path}.`)), `${paths.join(', ')} vs ${c.path}`).toBe(true);
      }
      if (c.message) expect(error.message).toMatch(c.message);
      expect(error.message.length).toBeGreaterThan(10);
      expect(await snapshot(docevals)).toBe(before);
    });
  }

  it('without an organization, the event stream fails as a stream (its iteration throws), the others reject', async () => {
    const docevals = makeService();
    const stream = docevals.evals.iterations.events('', { evaluation_id: 'e', iteration_id: 'i' });
    expect(Symbol.asyncIterator in stream).toBe(true);
    await expect((async () => { for await (const _ of stream) void _; })()).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(docevals.evals.iterations.get('', { evaluation_id: 'e', iteration_id: 'i', view: 'summary' })).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('refuses a schema whose structure changed once iterations exist, naming both ids', async () => {
    const docevals = makeService();
    const evaluation = await seeded(docevals);
    await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    const changed = { type: 'object', properties: { total: { type: 'string' } } };
    const error = await failure(docevals.evals.update(ORG, { evaluation_id: evaluation.id, json_schema: changed }));
    expect(error.code).toBe('conflict');
    expect(error.message).toContain(evaluation.schema_data_id);
    // Only prompts changed: allowed, schema_id moves, schema_data_id stays.
    const prompts = { ...invoiceSchema, description: 'An invoice', properties: { ...invoiceSchema.properties, total: { type: 'number', title: 'Total due' } } };
    const updated = await docevals.evals.update(ORG, { evaluation_id: evaluation.id, json_schema: prompts });
    expect(updated.schema_data_id).toBe(evaluation.schema_data_id);
    expect(updated.schema_id).not.toBe(evaluation.schema_id);
  });

  it('lets the structure change while there are no iterations', async () => {
    const docevals = makeService();
    const evaluation = await seeded(docevals);
    const changed = { type: 'object', properties: { total: { type: 'string' } } };
    const updated = await docevals.evals.update(ORG, { evaluation_id: evaluation.id, json_schema: changed });
    expect(updated.schema_data_id).not.toBe(evaluation.schema_data_id);
  });

  it('refuses an id that is taken, in the same organization only', async () => {
    const docevals = makeService();
    await docevals.evals.create(ORG, { id: 'my-eval', name: 'x', json_schema: invoiceSchema });
    const error = await failure(docevals.evals.create(ORG, { id: 'my-eval', name: 'y', json_schema: invoiceSchema }));
    expect(error.code).toBe('conflict');
    const other = await docevals.evals.create(OTHER_ORG, { id: 'my-eval', name: 'z', json_schema: invoiceSchema });
    expect(other.name).toBe('z');
    expect((await docevals.evals.get(ORG, { evaluation_id: 'my-eval' })).name).toBe('x');
  });

  it('ignores computed fields a client sends', async () => {
    const docevals = makeService();
    const evaluation = await docevals.evals.create(ORG, {
      name: 'x',
      json_schema: invoiceSchema,
      schema_id: 'sch_id_forged',
      updated_at: '1999-01-01T00:00:00Z',
    } as never);
    expect(evaluation.schema_id).not.toBe('sch_id_forged');
    expect(evaluation.updated_at).not.toBe('1999-01-01T00:00:00Z');
  });
});
