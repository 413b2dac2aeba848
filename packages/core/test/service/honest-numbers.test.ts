import { describe, expect, it } from 'vitest';
import { localRulesExtractor, type Extractor } from '@docevals/core';
import { createInvoices, dataUrl, invoiceDocument, jsonFileExtractor, makeService, ORG } from './fixtures.js';

// Issue 25 "Done when", through the service as REST, tRPC and the CLI call it.

const failed = (n: number) => ({ prediction: {}, metadata: { error: `provider error ${n}` } });

/** Ten documents, annotation total 10; iteration A fails 9 and is perfect on one, B reads 6 (0.6) everywhere. */
function tenDocuments() {
  return Array.from({ length: 10 }, (_, i) => invoiceDocument(`d${i}.json`, { vendor: 'V', total: 10, n: i }, { total: 10 }));
}

describe('honest numbers (issue 25)', () => {
  it('a model failing 9 of 10 documents and perfect on one: mean 0.1, coverage 0.1, succeeded mean 1, ranked below 0.6 everywhere', async () => {
    const docevals = makeService();
    const evaluation = await createInvoices(docevals, {
      documents: tenDocuments(),
      iterations: [
        { inference_settings: { model: 'fails-9' }, predictions: [{ prediction: { total: 10 } }, ...Array.from({ length: 9 }, (_, i) => failed(i))] },
        { inference_settings: { model: 'steady' }, predictions: Array.from({ length: 10 }, () => ({ prediction: { total: 6 } })) },
      ],
    });
    const [a, b] = evaluation.iterations;
    expect(a!.metric_results.mean_similarity).toBeCloseTo(0.1, 12);
    expect(a!.metric_results.coverage).toBeCloseTo(0.1, 12);
    expect(a!.metric_results.succeeded_mean_similarity).toBe(1);
    expect(a!.metric_results.counts).toEqual({ documents: 10, succeeded: 1, failed: 9, unlabeled: 0, pending: 0 });
    expect(b!.metric_results.mean_similarity).toBeCloseTo(0.6, 12);
    const summary = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: a!.id, view: 'summary' });
    expect(summary.metric_results.mean_similarity).toBeCloseTo(0.1, 12);
    expect(summary.metric_results.coverage).toBeCloseTo(0.1, 12);
    const board = await docevals.evals.leaderboard(ORG, { evaluation_id: evaluation.id });
    expect(board.rows.map((r) => [r.model, r.rank])).toEqual([['steady', 1], ['fails-9', 2]]);
    expect(board.rows[1]).toMatchObject({ succeeded: 1, failed: 9, coverage: expect.closeTo(0.1, 12), succeeded_mean_similarity: 1 });
  });

  it('a document with {} ground truth is unlabeled: in no mean, counted everywhere; ground truth brings it into every figure at once', async () => {
    const docevals = makeService();
    const evaluation = await createInvoices(docevals, {
      documents: [
        invoiceDocument('a.json', { vendor: 'A', total: 10 }, { vendor: 'A', total: 10 }),
        invoiceDocument('b.json', { vendor: 'B', total: 5 }, {}),
      ],
    });
    const run = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    expect(run.metric_results.mean_similarity).toBe(1);
    expect(run.metric_results.counts).toMatchObject({ succeeded: 1, unlabeled: 1, failed: 0 });
    const overview = await docevals.evals.get(ORG, { evaluation_id: evaluation.id, view: 'summary' });
    expect(overview).toMatchObject({ document_count: 2, unlabeled_count: 1 });
    expect(overview.iterations[0]!.metric_results.counts.unlabeled).toBe(1);
    const fields = await docevals.evals.iterations.fields(ORG, { evaluation_id: evaluation.id, iteration_id: run.id });
    expect(fields.counts).toEqual({ succeeded: 1, failed: 0, unlabeled: 1, pending: 0 });
    const matrix = await docevals.evals.matrix(ORG, { evaluation_id: evaluation.id });
    expect(matrix.data.map((r) => r.labeled)).toEqual([true, false]);

    // Ground truth for b (the prediction reads vendor B, total 5): the mean moves at once in the summary and the whole.
    const b = evaluation.documents[1]!.id;
    await docevals.evals.documents.update(ORG, { evaluation_id: evaluation.id, document_id: b, annotation: { vendor: 'B', total: 10 } });
    const after = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: run.id, view: 'summary' });
    expect(after.metric_results.counts).toMatchObject({ succeeded: 2, unlabeled: 0 });
    expect(after.metric_results.mean_similarity).toBeCloseTo(0.875, 12);
    const whole = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: run.id });
    expect(whole.metric_results.mean_similarity).toBeCloseTo(0.875, 12);
    expect((await docevals.evals.get(ORG, { evaluation_id: evaluation.id, view: 'summary' })).unlabeled_count).toBe(0);
  });

  it('local-rules on a text document missing a required field: the iteration completes, the prediction keeps what was found, schema_valid false', async () => {
    const docevals = makeService({ extractors: [localRulesExtractor()] });
    const evaluation = await docevals.evals.create(ORG, {
      name: 'local',
      json_schema: { type: 'object', properties: { reference: { type: 'string' }, total: { type: 'number' } }, required: ['reference', 'total'] },
      default_inference_settings: { model: 'local-rules' },
      documents: [{ mime_data: { filename: 'a.txt', url: dataUrl('Total: 12\n', 'text/plain') }, annotation: { reference: 'R-1', total: 12 } }],
    });
    const run = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    expect(run.status).toBe('completed');
    expect(run.predictions[0]).toMatchObject({ prediction: { reference: null, total: 12 }, schema_valid: false });
    expect(run.predictions[0]!.schema_issues![0]!.path).toBe('reference');
    expect(run.metric_results).toMatchObject({ schema_valid_rate: 0, mean_similarity: 0.5, coverage: 1 });
    const summary = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: run.id, view: 'summary' });
    expect(summary.metric_results.schema_valid_rate).toBe(0);
  });

  it('compare counts failures as 0 and gives the mean and each field a seeded paired interval', async () => {
    const docevals = makeService();
    const documents = Array.from({ length: 40 }, (_, i) => invoiceDocument(`d${i}.json`, { n: i }, { vendor: `Vendor ${i}`, total: 100 }));
    const same = Array.from({ length: 40 }, (_, i) => ({ prediction: { vendor: `Vendor ${i}`, total: 100 } }));
    const evaluation = await createInvoices(docevals, {
      documents,
      iterations: [
        { predictions: same },
        // total drops to 50 on 30 of 40 documents
        { predictions: same.map((p, i) => (i < 30 ? { prediction: { ...p.prediction, total: 50 } } : p)) },
        // one document a little off
        { predictions: same.map((p, i) => (i === 0 ? { prediction: { ...p.prediction, total: 98 } } : p)) },
      ],
    });
    const [base, drop, tiny] = evaluation.iterations.map((it) => it.id);
    const dropped = await docevals.evals.compare(ORG, { evaluation_id: evaluation.id, base: base!, head: drop! });
    const total = dropped.fields.find((f) => f.field === 'total')!;
    expect(total.paired).toMatchObject({ n: 40, significant: true });
    expect(total.paired!.ci_high).toBeLessThan(0);
    expect(dropped.mean_similarity.paired!.significant).toBe(true);
    expect(dropped.fields.find((f) => f.field === 'vendor')!.paired).toMatchObject({ delta: 0, significant: false });
    const again = await docevals.evals.compare(ORG, { evaluation_id: evaluation.id, base: base!, head: drop! });
    expect(again.fields.find((f) => f.field === 'total')!.paired).toEqual(total.paired);
    const small = await docevals.evals.compare(ORG, { evaluation_id: evaluation.id, base: base!, head: tiny! });
    expect(small.mean_similarity.paired).toMatchObject({ n: 40, significant: false });
    expect(small.fields.find((f) => f.field === 'total')!.paired!.significant).toBe(false);
    expect(small.base_counts).toEqual({ succeeded: 40, failed: 0, unlabeled: 0, pending: 0 });
  });

  it('calibration of an n_consensus 3 iteration: bins add up to the scored leaves, ECE in [0, 1], per field and overall', async () => {
    let call = 0;
    // Runs disagree on `total` one time in three; `vendor` is always read the same.
    const wobbly: Extractor = {
      ...jsonFileExtractor(),
      name: 'wobbly',
      models: ['wobbly'],
      async extract(request) {
        const out = await jsonFileExtractor().extract(request);
        const data = out.data as { vendor: string; total: number };
        return { data: { ...data, total: call++ % 3 === 0 ? data.total + 1 : data.total } };
      },
    };
    const docevals = makeService({ extractors: [wobbly], extraction: { concurrency: 1, backoffBaseMs: 1, backoffMaxMs: 2 } });
    const documents = Array.from({ length: 6 }, (_, i) => invoiceDocument(`d${i}.json`, { vendor: `V${i}`, total: 10 + i }, { vendor: `V${i}`, total: 10 + i }));
    const evaluation = await createInvoices(docevals, { documents, default_inference_settings: { model: 'wobbly', n_consensus: 3 } });
    const run = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    const scoredLeaves = run.metric_results.item_metrics.reduce((n, m) => n + Object.keys(m.flat_similarities).length, 0);
    const fields = await docevals.evals.iterations.fields(ORG, { evaluation_id: evaluation.id, iteration_id: run.id });
    expect(fields.calibration).not.toBeNull();
    expect(fields.calibration!.bins).toHaveLength(10);
    expect(fields.calibration!.bins.reduce((n, b) => n + b.count, 0)).toBe(scoredLeaves);
    expect(fields.calibration!.ece).toBeGreaterThanOrEqual(0);
    expect(fields.calibration!.ece).toBeLessThanOrEqual(1);
    const vendor = fields.fields.find((f) => f.field === 'vendor')!;
    expect(vendor.calibration!.bins[9]).toMatchObject({ count: 6, mean_likelihood: 1, exact_rate: 1 });
    const perField = fields.fields.reduce((n, f) => n + (f.calibration?.bins.reduce((m, b) => m + b.count, 0) ?? 0), 0);
    expect(perField).toBe(scoredLeaves);
    // Without likelihoods (n_consensus 1, no logprobs): no calibration.
    const plain = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, inference_settings: { n_consensus: 1 } });
    expect((await docevals.evals.iterations.fields(ORG, { evaluation_id: evaluation.id, iteration_id: plain.id })).calibration).toBeNull();
  });
});
