import { describe, expect, it } from 'vitest';
import { createInvoices, invoiceDocument, makeService, ORG } from './fixtures.js';

// The answer's predictions and item metrics are built in their wire shape directly (render.ts): these pin that shape,
// key order included (the bytes of a JSON answer), for each kind of outcome, and that an answer rendered from the
// records a create has in hand equals the one read back from the store.
describe("an iteration's answer", () => {
  const json_schema = { type: 'object', properties: { vendor: { type: 'string' }, total: { type: 'number' } }, required: ['vendor'] };

  async function imported() {
    const docevals = makeService();
    const evaluation = await createInvoices(docevals, {
      json_schema,
      documents: [
        invoiceDocument('a.json', { n: 1 }, { vendor: 'Acme', total: 10 }),
        invoiceDocument('b.json', { n: 2 }, { vendor: 'Bolt', total: 20 }),
        invoiceDocument('c.json', { n: 3 }, { vendor: 'Core', total: 30 }),
        invoiceDocument('d.json', { n: 4 }, { vendor: 'Dune', total: 40 }),
      ],
    });
    const [a, b, c] = evaluation.documents.map((d) => d.id);
    const created = await docevals.evals.create(ORG, {
      id: 'ev_shape',
      name: 'shape',
      json_schema,
      documents: evaluation.documents.map((d, i) => invoiceDocument(`${'abcd'[i]}.json`, { n: i + 1 }, d.annotation!)),
      iterations: [
        {
          id: 'it_shape',
          inference_settings: { model: 'imported' },
          // d has none: pending. b does not match the schema; c failed.
          predictions: [
            { document_id: a!, prediction: { vendor: 'Acme', total: 11 }, metadata: { api_cost: { value: 0.5, currency: 'USD' } } },
            { document_id: b!, prediction: { total: 'x' } },
            { document_id: c!, prediction: {}, metadata: { error: 'timed out' } },
          ],
        },
      ],
    });
    return { docevals, created };
  }

  it('writes each prediction and item metric with the keys in their order, the cached revision left out', async () => {
    const { created } = await imported();
    const [iteration] = created.iterations;
    const keys = (o: object) => Object.keys(o).join(',');
    expect(iteration!.predictions.map(keys)).toEqual([
      'document_id,prediction,metadata,schema_valid',
      'document_id,prediction,metadata,schema_valid,schema_issues',
      'document_id,prediction,metadata',
      'document_id,prediction,metadata',
    ]);
    expect(iteration!.predictions[1]!.schema_issues).toEqual([
      { path: '', message: "must have required property 'vendor'" },
      { path: 'total', message: 'must be number' },
    ]);
    expect(iteration!.predictions[3]).toEqual({ document_id: created.documents[3]!.id, prediction: {}, metadata: null });
    const figures = 'similarity,flat_similarities,similarities,aligned_similarity,aligned_flat_similarities,aligned_similarities';
    expect(iteration!.metric_results.item_metrics.map(keys)).toEqual(Array(4).fill(`id,name,${figures}`));
    expect(iteration!.metric_results.item_metrics[0]).toMatchObject({ id: created.documents[0]!.id, name: 'a.json', flat_similarities: { vendor: 1 } });
    expect(iteration!.metric_results.item_metrics[0]!.similarity).toBeLessThan(1);
    expect(iteration!.progress).toEqual({ total: 4, succeeded: 2, failed: 1, pending: 1 });
    expect(iteration!.metric_results.schema_valid_rate).toBe(0.5);
  });

  it('is the same text rendered from the records in hand and read back from the store, whole or a page at a time', async () => {
    const { docevals, created } = await imported();
    const read = await docevals.evals.get(ORG, { evaluation_id: 'ev_shape' });
    expect(JSON.stringify(read)).toBe(JSON.stringify(created));
    const iteration = await docevals.evals.iterations.get(ORG, { evaluation_id: 'ev_shape', iteration_id: 'it_shape' });
    expect(JSON.stringify(iteration)).toBe(JSON.stringify(created.iterations[0]));
    const page = await docevals.evals.iterations.predictions(ORG, { evaluation_id: 'ev_shape', iteration_id: 'it_shape', limit: 10 });
    const statuses = ['succeeded', 'succeeded', 'failed', 'pending'];
    expect(page.data.map((o) => JSON.stringify(o))).toEqual(
      created.iterations[0]!.predictions.map((p, i) =>
        JSON.stringify({ ...p, status: statuses[i], metrics: created.iterations[0]!.metric_results.item_metrics[i] }),
      ),
    );
  });
});
