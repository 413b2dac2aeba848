import { describe, expect, it } from 'vitest';
import { DocevalsError, type Docevals } from '@docevals/core';
import { withoutRequired } from '@docevals/core/internal';
import { invoiceDocument, makeService, ORG } from './fixtures.js';
import { rejectionOf } from '../../../../test-support/rejection.js';

/** The evaluation's schema: `required` everywhere, a closed nested object, an enum, a date format, typed items. */
const schema = {
  type: 'object',
  required: ['vendor', 'total', 'lines'],
  properties: {
    vendor: { type: 'string' },
    total: { type: 'number' },
    currency: { enum: ['EUR', 'USD'] },
    issued: { type: ['string', 'null'], format: 'date' },
    address: { type: 'object', additionalProperties: false, required: ['city'], properties: { city: { type: 'string' } } },
    lines: { type: 'array', items: { type: 'object', required: ['sku', 'qty'], properties: { sku: { type: 'string' }, qty: { type: 'integer' } } } },
  },
};

const failure = (promise: Promise<unknown>) => rejectionOf(promise, DocevalsError);

const doc = (name: string, annotation: Record<string, unknown>) => invoiceDocument(name, { name }, annotation);

async function evaluation(docevals: Docevals, annotation: Record<string, unknown> = { total: 1 }) {
  return docevals.evals.create(ORG, { name: 'e', json_schema: schema, documents: [doc('a.json', annotation)] });
}

describe('annotations are checked against the evaluation schema (required not enforced)', () => {
  it('accepts a partial annotation: missing required keys, at every depth', async () => {
    const docevals = makeService();
    const created = await docevals.evals.create(ORG, {
      name: 'e',
      json_schema: schema,
      documents: [doc('a.json', {}), doc('b.json', { address: {}, lines: [{ sku: 'A' }], issued: null })],
    });
    expect(created.documents.map((d) => d.annotation)).toEqual([{}, { address: {}, lines: [{ sku: 'A' }], issued: null }]);
  });

  it('create: a 422 naming documents.N.annotation.<path> for each mismatch; nothing stored', async () => {
    const docevals = makeService();
    const error = await failure(
      docevals.evals.create(ORG, {
        name: 'e',
        json_schema: schema,
        documents: [
          doc('a.json', { total: 3 }),
          doc('b.json', { total: 'abc', currency: 'GBP', issued: '2024-13-45', address: { city: 'X', zip: '1' }, lines: [{ qty: 1.5 }] }),
        ],
      }),
    );
    expect(error.code).toBe('validation_error');
    expect(error.message).toContain('documents.1.annotation.total: must be number');
    expect(error.message).toContain('"validate": false');
    const paths = error.issues!.map((i) => i.path).sort();
    expect(paths).toEqual([
      'documents.1.annotation.address.zip',
      'documents.1.annotation.currency',
      'documents.1.annotation.issued',
      'documents.1.annotation.lines.0.qty',
      'documents.1.annotation.total',
    ]);
    expect(error.issues!.find((i) => i.path.endsWith('currency'))!.message).toContain('"EUR", "USD"');
    expect((await docevals.evals.list(ORG, {})).data).toEqual([]);
  });

  it('create: "validate": false stores the annotation as it is', async () => {
    const docevals = makeService();
    const created = await docevals.evals.create(ORG, {
      name: 'e',
      json_schema: schema,
      validate: false,
      documents: [doc('a.json', { total: 'abc' })],
    });
    expect(created.documents[0]!.annotation).toEqual({ total: 'abc' });
  });

  it('create with imported iterations: predictions are not checked, annotations are', async () => {
    const docevals = makeService();
    const created = await docevals.evals.create(ORG, {
      name: 'e',
      json_schema: schema,
      documents: [doc('a.json', { total: 1 })],
      iterations: [{ inference_settings: { model: 'json-file' }, predictions: [{ prediction: { total: 'not a number' } }] }],
    });
    expect(created.iterations[0]!.predictions[0]!.prediction).toEqual({ total: 'not a number' });
    const error = await failure(
      docevals.evals.create(ORG, {
        name: 'e',
        json_schema: schema,
        documents: [doc('a.json', { total: 'x' })],
        iterations: [{ inference_settings: { model: 'json-file' }, predictions: [{ prediction: { total: 1 } }] }],
      }),
    );
    expect(error.issues).toEqual([{ path: 'documents.0.annotation.total', message: 'must be number' }]);
  });

  it('add: a 422 at annotation.<path>, the evaluation unchanged; validate false adds it', async () => {
    const docevals = makeService();
    const created = await evaluation(docevals);
    const error = await failure(docevals.evals.documents.add(ORG, { evaluation_id: created.id, ...doc('b.json', { lines: [{ sku: 7 }] }) }));
    expect(error.code).toBe('validation_error');
    expect(error.issues).toEqual([{ path: 'annotation.lines.0.sku', message: 'must be string' }]);
    expect(await docevals.evals.get(ORG, { evaluation_id: created.id })).toEqual(created);
    const added = await docevals.evals.documents.add(ORG, { evaluation_id: created.id, validate: false, ...doc('b.json', { lines: [{ sku: 7 }] }) });
    expect(added.annotation).toEqual({ lines: [{ sku: 7 }] });
  });

  it('add: a file the evaluation refused is released (it can be added again later)', async () => {
    const docevals = makeService();
    const created = await evaluation(docevals);
    await failure(docevals.evals.documents.add(ORG, { evaluation_id: created.id, ...doc('b.json', { total: 'x' }) }));
    const added = await docevals.evals.documents.add(ORG, { evaluation_id: created.id, ...doc('b.json', { total: 2 }) });
    expect(added.annotation).toEqual({ total: 2 });
  });

  it('update: a 422 at annotation.<path>, the annotation unchanged; validate false stores it', async () => {
    const docevals = makeService();
    const created = await evaluation(docevals, { total: 1 });
    const documentId = created.documents[0]!.id;
    const error = await failure(
      docevals.evals.documents.update(ORG, { evaluation_id: created.id, document_id: documentId, annotation: { total: 'abc' } }),
    );
    expect(error.issues).toEqual([{ path: 'annotation.total', message: 'must be number' }]);
    expect((await docevals.evals.documents.get(ORG, { evaluation_id: created.id, document_id: documentId })).annotation).toEqual({ total: 1 });
    const partial = await docevals.evals.documents.update(ORG, { evaluation_id: created.id, document_id: documentId, annotation: { vendor: 'ACME' } });
    expect(partial.annotation).toEqual({ vendor: 'ACME' });
    const forced = await docevals.evals.documents.update(ORG, {
      evaluation_id: created.id,
      document_id: documentId,
      annotation: { total: 'abc' },
      validate: false,
    });
    expect(forced.annotation).toEqual({ total: 'abc' });
  });

  it('checks against the schema the evaluation has now (after a PATCH of json_schema)', async () => {
    const docevals = makeService();
    const created = await evaluation(docevals, {});
    await docevals.evals.update(ORG, { evaluation_id: created.id, json_schema: { type: 'object', properties: { total: { type: 'string' } } } });
    const documentId = created.documents[0]!.id;
    const error = await failure(docevals.evals.documents.update(ORG, { evaluation_id: created.id, document_id: documentId, annotation: { total: 1 } }));
    expect(error.issues).toEqual([{ path: 'annotation.total', message: 'must be string' }]);
  });
});

describe('withoutRequired', () => {
  it('drops the required keyword everywhere but keeps properties named "required" and data', () => {
    const input = {
      type: 'object',
      required: ['required'],
      properties: { required: { type: 'boolean' }, nested: { type: 'object', required: ['a'], dependentRequired: { a: ['b'] } } },
      $defs: { x: { required: ['y'] } },
      anyOf: [{ required: ['z'] }],
      default: { required: ['kept'] },
      enum: [{ required: ['kept'] }],
    };
    expect(withoutRequired(input)).toEqual({
      type: 'object',
      properties: { required: { type: 'boolean' }, nested: { type: 'object' } },
      $defs: { x: {} },
      anyOf: [{}],
      default: { required: ['kept'] },
      enum: [{ required: ['kept'] }],
    });
    expect(input.required).toEqual(['required']); // the input is not modified
  });
});
