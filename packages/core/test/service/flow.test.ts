import { describe, expect, it } from 'vitest';
import { computeFileId } from '@docevals/core';
import { Buffer } from 'node:buffer';
import { createInvoices, dataUrl, invoiceDocument, invoiceSchema, lev, makeService, ORG } from './fixtures.js';

describe('the in-process flow', () => {
  it('creates, iterates, and metrics follow annotation edits, additions and deletions', async () => {
    const docevals = makeService();
    const evaluation = await createInvoices(docevals, {
      name: 'Invoices',
      documents: [
        invoiceDocument('a.json', { vendor: 'ACME', total: 10 }, { vendor: 'ACME', total: 10 }),
        invoiceDocument('b.json', { vendor: 'Globexx', total: 20 }, { vendor: 'Globex', total: 20 }),
      ],
    });
    expect(evaluation.id).toMatch(/^eval_/);
    expect(evaluation.documents.map((d) => d.mime_data.filename)).toEqual(['a.json', 'b.json']);
    const fileA = computeFileId(Buffer.from(JSON.stringify({ vendor: 'ACME', total: 10 })));
    expect(evaluation.documents[0]!.id).toBe(fileA);
    expect(evaluation.documents[0]!.mime_data.url).toBe(dataUrl(JSON.stringify({ vendor: 'ACME', total: 10 })));
    expect(evaluation.schema_id).toMatch(/^sch_id_[0-9a-f]{16}$/);
    expect(evaluation.schema_data_id).toMatch(/^sch_data_id_[0-9a-f]{16}$/);

    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, inference_settings: {} });
    expect(iteration.id).toMatch(/^eval_iter_/);
    expect(iteration.inference_settings).toEqual({
      model: 'json-file',
      temperature: 0,
      modality: 'native',
      reasoning_effort: 'medium',
      image_resolution_dpi: 96,
      browser_canvas: 'A4',
      n_consensus: 1,
    });
    expect(iteration.predictions.map((p) => p.document_id)).toEqual(evaluation.documents.map((d) => d.id));
    expect(iteration.predictions[1]!.prediction).toEqual({ vendor: 'Globexx', total: 20 });
    const [a, b] = iteration.metric_results.item_metrics;
    expect(a!.similarity).toBe(1);
    // "globex" vs "globexx": one insertion over 7 code points; total equal.
    expect(b!.similarity).toBeCloseTo((lev(1, 7) + 1) / 2, 12);
    expect(b!.flat_similarities).toEqual({ vendor: lev(1, 7), total: 1 });
    expect(iteration.metric_results.mean_similarity).toBeCloseTo((1 + b!.similarity) / 2, 12);
    expect(iteration.metric_results.metric_type).toBe('levenshtein');

    // Editing the annotation to match the prediction: the iteration's metrics follow.
    const docB = evaluation.documents[1]!.id;
    const edited = await docevals.evals.documents.update(ORG, {
      evaluation_id: evaluation.id,
      document_id: docB,
      annotation: { vendor: 'Globexx', total: 20 },
    });
    expect(edited.annotation).toEqual({ vendor: 'Globexx', total: 20 });
    const after = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id });
    expect(after.metric_results.item_metrics[1]!.similarity).toBe(1);
    expect(after.metric_results.mean_similarity).toBe(1);

    // A document added later has an empty prediction until the iteration is re-run for it.
    const added = await docevals.evals.documents.add(ORG, {
      evaluation_id: evaluation.id,
      ...invoiceDocument('c.json', { vendor: 'Initech', total: 5 }, { vendor: 'Initech', total: 5 }),
    });
    const withC = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id });
    expect(withC.predictions[2]).toEqual({ document_id: added.id, prediction: {}, metadata: null });
    expect(withC.metric_results.item_metrics[2]!.similarity).toBe(0);
    // Pending in this iteration: shown, scored as {} in its ItemMetric, but not averaged in (docs/spec/service.md).
    expect(withC.metric_results.mean_similarity).toBe(1);
    const summary = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id, view: 'summary' });
    expect(summary.progress).toEqual({ total: 3, succeeded: 2, failed: 0, pending: 1 });
    expect(summary.metric_results.mean_similarity).toBe(1);

    const rerun = await docevals.evals.iterations.process(ORG, {
      evaluation_id: evaluation.id,
      iteration_id: iteration.id,
      only_missing: true,
    });
    expect(rerun.predictions[2]!.prediction).toEqual({ vendor: 'Initech', total: 5 });
    expect(rerun.metric_results.mean_similarity).toBe(1);

    // Deleting a document removes its predictions everywhere.
    await docevals.evals.documents.delete(ORG, { evaluation_id: evaluation.id, document_id: docB });
    const listed = await docevals.evals.iterations.list(ORG, { evaluation_id: evaluation.id });
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]!.predictions.map((p) => p.document_id)).toEqual([evaluation.documents[0]!.id, added.id]);
    expect(listed.data[0]!.metric_results.item_metrics.map((m) => m.name)).toEqual(['a.json', 'c.json']);
  });

  it('lists iterations by model, oldest first', async () => {
    const docevals = makeService();
    const evaluation = await docevals.evals.create(ORG, {
      name: 'x',
      json_schema: invoiceSchema,
      documents: [invoiceDocument('a.json', { total: 1 }, { total: 1 })],
    });
    const first = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, inference_settings: { model: 'json-file' } });
    const second = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, inference_settings: { model: 'json-file-b' } });
    const third = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, inference_settings: { model: 'json-file' } });
    const all = await docevals.evals.iterations.list(ORG, { evaluation_id: evaluation.id });
    expect(all.data.map((i) => i.id)).toEqual([first.id, second.id, third.id]);
    const filtered = await docevals.evals.iterations.list(ORG, { evaluation_id: evaluation.id, model: 'json-file' });
    expect(filtered.data.map((i) => i.id)).toEqual([first.id, third.id]);
  });

  it('imports iterations given at creation and computes their metrics', async () => {
    const docevals = makeService();
    const evaluation = await docevals.evals.create(ORG, {
      name: 'imported',
      json_schema: invoiceSchema,
      documents: [
        invoiceDocument('a.json', { total: 1 }, { vendor: 'ACME', total: 100 }),
        invoiceDocument('b.json', { total: 2 }, { vendor: 'Globex', total: 50 }),
      ],
      iterations: [
        {
          inference_settings: { model: 'gpt-4o' },
          predictions: [{ prediction: { vendor: 'ACME', total: 90 } }, { prediction: { vendor: 'Globex', total: 50 } }],
        },
      ],
    });
    const [iteration] = evaluation.iterations;
    expect(iteration!.schema_id).toBe(evaluation.schema_id);
    expect(iteration!.json_schema).toEqual(invoiceSchema);
    // 90 vs 100: 1 - 10/100.
    expect(iteration!.metric_results.item_metrics[0]!.flat_similarities).toEqual({ vendor: 1, total: 0.9 });
    expect(iteration!.metric_results.mean_similarity).toBeCloseTo((0.95 + 1) / 2, 12);
  });

  it('records a failed document with its error and keeps the others', async () => {
    const docevals = makeService();
    const evaluation = await docevals.evals.create(ORG, {
      name: 'x',
      json_schema: invoiceSchema,
      documents: [
        invoiceDocument('ok.json', { total: 1 }, { total: 1 }),
        invoiceDocument('bad.json', { fail: true }, { total: 2 }),
      ],
    });
    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, inference_settings: { model: 'json-file' } });
    expect(iteration.predictions[0]!.prediction).toEqual({ total: 1 });
    expect(iteration.predictions[1]!.prediction).toEqual({});
    expect(iteration.predictions[1]!.metadata?.error).toMatch(/asked to fail/);
    expect(iteration.metric_results.item_metrics.map((m) => m.similarity)).toEqual([1, 0]);
  });

  it('keeps a processor, updates only what a PUT carries, and submits a document', async () => {
    const docevals = makeService();
    const processor = await docevals.processors.create(ORG, { name: 'p', model: 'json-file', json_schema: invoiceSchema });
    expect(processor).toMatchObject({
      object: 'processor',
      organization_id: ORG,
      modality: 'native',
      temperature: 0,
      reasoning_effort: 'medium',
      image_resolution_dpi: 96,
      browser_canvas: 'A4',
      n_consensus: 1,
    });
    const updated = await docevals.processors.update(ORG, { processor_id: processor.id, temperature: 0.5 });
    expect(updated).toMatchObject({ name: 'p', model: 'json-file', temperature: 0.5, modality: 'native' });
    const result = await docevals.processors.submit(ORG, {
      processor_id: processor.id,
      document: { filename: 'x.json', url: dataUrl(JSON.stringify({ vendor: 'V', total: 3 })) },
    });
    expect(result.prediction).toEqual({ vendor: 'V', total: 3 });
    await expect(
      docevals.processors.submit(ORG, {
        processor_id: processor.id,
        document: { filename: 'x.json', url: dataUrl(JSON.stringify({ fail: true })) },
      }),
    ).rejects.toMatchObject({ code: 'extractor_error' });
    const listed = await docevals.processors.list(ORG, { model: 'json-file' });
    expect(listed.data.map((p) => p.id)).toEqual([processor.id]);
    expect(await docevals.processors.delete(ORG, { processor_id: processor.id })).toEqual({ id: processor.id, deleted: true, success: true });
    await expect(docevals.processors.get(ORG, { processor_id: processor.id })).rejects.toMatchObject({ code: 'not_found' });
  });
});
