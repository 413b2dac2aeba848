import { describe, expect, it, vi } from 'vitest';
import { memoryStorage } from '../support/memory-storage.js';
import { createInvoices, invoiceDocument, invoiceSchema, jsonFileExtractor, makeService, ORG } from './fixtures.js';

/** An evaluation of `n` JSON documents whose prediction equals their annotation, with `iterations` run on it. */
async function evaluationWith(docevals: ReturnType<typeof makeService>, n: number, iterations: number) {
  const documents = Array.from({ length: n }, (_, i) => invoiceDocument(`d${i}.json`, { vendor: `V${i}`, total: i }, { vendor: `V${i}`, total: i }));
  const evaluation = await createInvoices(docevals, {
    name: 'scale',
    documents,
  });
  const created = [];
  for (let i = 0; i < iterations; i++) created.push(await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id }));
  return { evaluation, iterations: created };
}

describe('the per-document data model', () => {
  it('writes only small records when one annotation changes: the document and one prediction per iteration', async () => {
    const writes: Array<{ collection: string; bytes: number }> = [];
    const storage = memoryStorage({ onWrite: (w) => writes.push(w) });
    const docevals = makeService({ storage });
    const { evaluation } = await evaluationWith(docevals, 200, 3);
    writes.length = 0;
    await docevals.evals.documents.update(ORG, {
      evaluation_id: evaluation.id,
      document_id: evaluation.documents[7]!.id,
      annotation: { vendor: 'changed', total: 7 },
    });
    // One document record, one prediction in each of the 3 iterations: nothing that grows with the 200 documents.
    expect(writes.map((w) => w.collection).sort()).toEqual(['documents', 'predictions', 'predictions', 'predictions']);
    for (const w of writes) expect(w.bytes).toBeLessThan(4_000);
  });

  it('creates an evaluation in one document commit and one file commit', async () => {
    const writes: Array<{ collection: string; bytes: number }> = [];
    const storage = memoryStorage({ onWrite: (w) => writes.push(w) });
    const docevals = makeService({ storage });
    await evaluationWith(docevals, 50, 0);
    expect(writes.filter((w) => w.collection === 'documents')).toHaveLength(1);
    expect(writes.filter((w) => w.collection === 'files')).toHaveLength(1);
    expect(writes.filter((w) => w.collection === 'evaluations')).toHaveLength(1);
  });

  it('answers view=summary with status, progress, usage and means from the totals, and follows edits and deletes', async () => {
    const docevals = makeService();
    const { evaluation, iterations } = await evaluationWith(docevals, 4, 1);
    const ref = { evaluation_id: evaluation.id, iteration_id: iterations[0]!.id };
    const summary = await docevals.evals.iterations.get(ORG, { ...ref, view: 'summary' });
    expect(summary).toMatchObject({
      id: iterations[0]!.id,
      status: 'completed',
      error: null,
      progress: { total: 4, succeeded: 4, failed: 0, pending: 0 },
      usage: { input_tokens: 0, output_tokens: 0, cost: 0 },
      metric_results: { mean_similarity: 1, aligned_mean_similarity: 1, metric_type: 'levenshtein' },
    });
    expect(summary).not.toHaveProperty('predictions');
    expect(summary.finished_at).not.toBeNull();

    // An edit moves the aggregates at once (the prediction's totals are refreshed with it).
    await docevals.evals.documents.update(ORG, { evaluation_id: evaluation.id, document_id: evaluation.documents[0]!.id, annotation: { total: 0 } });
    const edited = await docevals.evals.iterations.get(ORG, { ...ref, view: 'summary' });
    const full = await docevals.evals.iterations.get(ORG, ref);
    expect(edited.metric_results.mean_similarity).toBeCloseTo(full.metric_results.mean_similarity, 12);
    expect(edited.metric_results.mean_similarity).toBeLessThan(1);

    await docevals.evals.documents.delete(ORG, { evaluation_id: evaluation.id, document_id: evaluation.documents[0]!.id });
    const afterDelete = await docevals.evals.iterations.get(ORG, { ...ref, view: 'summary' });
    expect(afterDelete.progress).toEqual({ total: 3, succeeded: 3, failed: 0, pending: 0 });
    expect(afterDelete.metric_results.mean_similarity).toBe(1);

    const listed = await docevals.evals.iterations.list(ORG, { evaluation_id: evaluation.id, view: 'summary' });
    expect(listed.data).toEqual([afterDelete]);
  });

  it('marks an iteration whose every document failed as failed, with the first error, and counts every failure as 0', async () => {
    const docevals = makeService();
    const evaluation = await createInvoices(docevals, {
      name: 'fails',
      documents: [invoiceDocument('bad.json', { fail: true }, { total: 1 }), invoiceDocument('bad2.json', { fail: true, n: 2 }, { total: 2 })],
    });
    // A sync create answers 502 naming the iteration, which is kept, failed, with the first error.
    const refused = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'extractor_error', iteration_id: expect.stringMatching(/^eval_iter_/) });
    expect((refused as Error).message).toMatch(/asked to fail/);
    const iteration = { id: (refused as { iteration_id: string }).iteration_id };
    const summary = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id, view: 'summary' });
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatch(/asked to fail/);
    expect(summary.progress).toEqual({ total: 2, succeeded: 0, failed: 2, pending: 0 });
    expect(summary.metric_results.mean_similarity).toBe(0);

    // One document that succeeds next to one that fails: the failure counts 0 in the mean, the iteration completed.
    const mixed = await createInvoices(docevals, {
      name: 'mixed',
      documents: [invoiceDocument('ok.json', { total: 1 }, { total: 1 }), invoiceDocument('bad.json', { fail: true }, { total: 2 })],
    });
    const run = await docevals.evals.iterations.create(ORG, { evaluation_id: mixed.id });
    expect(run.metric_results.item_metrics.map((m) => m.similarity)).toEqual([1, 0]);
    expect(run.metric_results).toMatchObject({ mean_similarity: 0.5, succeeded_mean_similarity: 1, coverage: 0.5, partial: false });
    expect(run.metric_results.counts).toEqual({ documents: 2, succeeded: 1, failed: 1, unlabeled: 0, pending: 0 });
    const mixedSummary = await docevals.evals.iterations.get(ORG, { evaluation_id: mixed.id, iteration_id: run.id, view: 'summary' });
    expect(mixedSummary).toMatchObject({ status: 'completed', progress: { succeeded: 1, failed: 1, pending: 0 } });
    // The summary (running totals) gives the same figures as the whole iteration (computed from the records).
    const { item_metrics: _items, ...whole } = run.metric_results;
    expect(mixedSummary.metric_results).toEqual(whole);
  });

  it('pages predictions with their metrics in document order, with an after cursor', async () => {
    const docevals = makeService();
    const { evaluation, iterations } = await evaluationWith(docevals, 5, 1);
    const ref = { evaluation_id: evaluation.id, iteration_id: iterations[0]!.id };
    const order = evaluation.documents.map((d) => d.id);
    const first = await docevals.evals.iterations.predictions(ORG, { ...ref, limit: 2 });
    expect(first.data.map((p) => p.document_id)).toEqual(order.slice(0, 2));
    expect(first.data[0]).toMatchObject({ status: 'succeeded', prediction: { vendor: 'V0', total: 0 }, metrics: { id: order[0], name: 'd0.json', similarity: 1 } });
    expect(first.list_metadata).toEqual({ before: null, after: order[1] });
    const rest = await docevals.evals.iterations.predictions(ORG, { ...ref, limit: 10, after: first.list_metadata.after! });
    expect(rest.data.map((p) => p.document_id)).toEqual(order.slice(2));
    expect(rest.list_metadata.after).toBeNull();
    await expect(docevals.evals.iterations.predictions(ORG, { ...ref, after: 'file_0000000000000000' })).rejects.toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'after' }],
    });
    await expect(docevals.evals.iterations.predictions(ORG, { ...ref, limit: 1001 })).rejects.toMatchObject({ code: 'validation_error' });

    // A document added later is pending there, with the metrics of {}.
    const added = await docevals.evals.documents.add(ORG, { evaluation_id: evaluation.id, ...invoiceDocument('new.json', { total: 9 }, { total: 9 }) });
    const last = await docevals.evals.iterations.predictions(ORG, { ...ref, after: order[4]! });
    expect(last.data).toEqual([
      expect.objectContaining({ document_id: added.id, status: 'pending', prediction: {}, metadata: null, metrics: expect.objectContaining({ similarity: 0 }) }),
    ]);
  });

  it("answers an evaluation's view=summary without its documents: their count and iteration summaries, reading none", async () => {
    const storage = memoryStorage();
    const docevals = makeService({ storage });
    const { evaluation, iterations } = await evaluationWith(docevals, 5, 2);
    const [listed] = (await docevals.evals.list(ORG, { limit: 1 })).data;

    const documentReads = [vi.spyOn(storage.documents, 'list'), vi.spyOn(storage.documents, 'get'), vi.spyOn(storage.documents, 'getMany')];
    const otherReads = [vi.spyOn(storage.files, 'get'), vi.spyOn(storage.predictions, 'list'), vi.spyOn(storage.predictions, 'getMany')];
    const summary = await docevals.evals.get(ORG, { evaluation_id: evaluation.id, view: 'summary' });
    for (const read of [...documentReads, ...otherReads]) expect(read).not.toHaveBeenCalled();
    vi.restoreAllMocks();

    // What a list says of it, less the documents; the iterations as their own summaries say.
    const { documents: _documents, ...withoutDocuments } = listed!;
    expect(summary).toEqual(withoutDocuments);
    expect(summary).toMatchObject({ id: evaluation.id, name: 'scale', document_count: 5 });
    expect(summary).not.toHaveProperty('documents');
    expect(summary.iterations.map((it) => it.id)).toEqual(iterations.map((it) => it.id));
    expect(summary.iterations[1]).toEqual(await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: iterations[1]!.id, view: 'summary' }));

    // The default view is still the whole evaluation; the count follows a deleted document.
    expect((await docevals.evals.get(ORG, { evaluation_id: evaluation.id })).documents).toHaveLength(5);
    await docevals.evals.documents.delete(ORG, { evaluation_id: evaluation.id, document_id: evaluation.documents[0]!.id });
    const after = await docevals.evals.get(ORG, { evaluation_id: evaluation.id, view: 'summary' });
    expect(after.document_count).toBe(4);
    expect(after.iterations[0]!.progress.total).toBe(4);
    await expect(docevals.evals.get(ORG, { evaluation_id: evaluation.id, view: 'tiny' as 'summary' })).rejects.toMatchObject({ issues: [{ path: 'view' }] });
    await expect(docevals.evals.get(ORG, { evaluation_id: 'eval_missing', view: 'summary' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('answers only the documents named by document_ids, in their order, each once, read by id', async () => {
    const storage = memoryStorage();
    const docevals = makeService({ storage });
    const { evaluation, iterations } = await evaluationWith(docevals, 6, 1);
    const ref = { evaluation_id: evaluation.id, iteration_id: iterations[0]!.id };
    const order = evaluation.documents.map((d) => d.id);
    const all = (await docevals.evals.iterations.predictions(ORG, { ...ref, limit: 10 })).data;

    const listed = vi.spyOn(storage.documents, 'list');
    const documentReads = vi.spyOn(storage.documents, 'getMany');
    const predictionReads = vi.spyOn(storage.predictions, 'getMany');
    const named = await docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: [order[4]!, order[1]!, order[4]!] });
    expect(named).toEqual({ data: [all[4], all[1]], list_metadata: { before: null, after: null } });
    // By key: the two documents and their two predictions, never a page of the evaluation's documents.
    expect(listed).not.toHaveBeenCalled();
    expect(documentReads.mock.calls).toEqual([[ORG, evaluation.id, [order[4], order[1]]]]);
    expect(predictionReads.mock.calls).toEqual([[ORG, ref.iteration_id, [order[4], order[1]]]]);
    vi.restoreAllMocks();

    // limit and after page through the named documents.
    const ids = [order[5]!, order[0]!, order[3]!];
    const first = await docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: ids, limit: 2 });
    expect(first.data.map((p) => p.document_id)).toEqual(ids.slice(0, 2));
    expect(first.list_metadata).toEqual({ before: null, after: ids[1] });
    const second = await docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: ids, limit: 2, after: ids[1]! });
    expect(second).toEqual({ data: [all[3]], list_metadata: { before: ids[2], after: null } });
    // A cursor outside the named documents names nothing in this list.
    await expect(docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: ids, after: order[2]! })).rejects.toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'after' }],
    });
    expect(await docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: [] })).toEqual({
      data: [],
      list_metadata: { before: null, after: null },
    });

    // A document added after the iteration ran is pending there.
    const added = await docevals.evals.documents.add(ORG, { evaluation_id: evaluation.id, ...invoiceDocument('new.json', { total: 9 }, { total: 9 }) });
    const pending = await docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: [added.id] });
    expect(pending.data).toEqual([expect.objectContaining({ document_id: added.id, status: 'pending', prediction: {}, metadata: null })]);
  });

  it('refuses document_ids naming no document of the evaluation with a 422 at each such index', async () => {
    const docevals = makeService();
    const { evaluation, iterations } = await evaluationWith(docevals, 3, 1);
    const other = await createInvoices(docevals, { name: 'other', documents: [invoiceDocument('x.json', { total: 77 }, { total: 77 })] });
    const ref = { evaluation_id: evaluation.id, iteration_id: iterations[0]!.id };
    const foreign = other.documents[0]!.id;
    const error = await docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: [evaluation.documents[0]!.id, 'file_0000000000000000', foreign] }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'validation_error',
      issues: [
        { path: 'document_ids.1', message: 'no document file_0000000000000000 in this evaluation' },
        { path: 'document_ids.2', message: `no document ${foreign} in this evaluation` },
      ],
    });
    // A deleted document is unknown too.
    await docevals.evals.documents.delete(ORG, { evaluation_id: evaluation.id, document_id: evaluation.documents[2]!.id });
    await expect(docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: [evaluation.documents[2]!.id] })).rejects.toMatchObject({
      issues: [{ path: 'document_ids.0' }],
    });
    // The schema's bounds: ids of 1 to 256 characters, at most 10,000 of them.
    await expect(docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: [''] })).rejects.toMatchObject({ issues: [{ path: 'document_ids.0' }] });
    const tooMany = Array.from({ length: 10_001 }, (_, i) => `file_${i}`);
    await expect(docevals.evals.iterations.predictions(ORG, { ...ref, document_ids: tooMany })).rejects.toMatchObject({ issues: [{ path: 'document_ids' }] });
  });

  it('lists evaluations and documents as summaries without contents, whole with expand=documents', async () => {
    const docevals = makeService();
    const { evaluation } = await evaluationWith(docevals, 2, 1);
    const listed = await docevals.evals.list(ORG, {});
    const [item] = listed.data;
    expect(item!.document_count).toBe(2);
    const id = evaluation.documents[0]!.id;
    expect(item!.documents[0]).toEqual({
      id,
      filename: 'd0.json',
      mime_type: 'application/json',
      size: expect.any(Number),
      mime_data: { filename: 'd0.json', url: `/v1/evals/${evaluation.id}/documents/${id}/content` },
    });
    expect(item!.iterations[0]).toMatchObject({ status: 'completed', progress: { total: 2 } });
    expect(item!.iterations[0]).not.toHaveProperty('predictions');
    const expanded = await docevals.evals.list(ORG, { expand: 'documents', limit: 5 });
    expect(expanded.data[0]!.documents[0]).toEqual(evaluation.documents[0]);
    await expect(docevals.evals.list(ORG, { expand: 'documents', limit: 11 })).rejects.toMatchObject({ code: 'validation_error', issues: [{ path: 'limit' }] });

    const documents = await docevals.evals.documents.list(ORG, { evaluation_id: evaluation.id });
    expect(documents.data.map((d) => Object.keys(d).sort())).toEqual([['filename', 'id', 'mime_data', 'mime_type', 'size'], ['filename', 'id', 'mime_data', 'mime_type', 'size']]);
    const whole = await docevals.evals.documents.list(ORG, { evaluation_id: evaluation.id, expand: 'documents' });
    expect(whole.data).toEqual(evaluation.documents);
  });

  it('never shows a document deleted (and added again) while an iteration ran: it is pending there', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls: string[] = [];
    const docevals = makeService({ extractors: [jsonFileExtractor({ gate, calls })] });
    const documents = [0, 1, 2, 3].map((i) => invoiceDocument(`d${i}.json`, { total: i }, { total: i }));
    const evaluation = await createInvoices(docevals, {
      name: 'l2',
      documents,
    });
    const running = docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    while (calls.length < 4) await new Promise((r) => setTimeout(r, 1));
    const gone = evaluation.documents[1]!.id;
    const removed = evaluation.documents[2]!.id;
    await docevals.evals.documents.delete(ORG, { evaluation_id: evaluation.id, document_id: gone });
    await docevals.evals.documents.delete(ORG, { evaluation_id: evaluation.id, document_id: removed });
    // The same file again: a new document for this evaluation, added after the iteration started.
    await docevals.evals.documents.add(ORG, { evaluation_id: evaluation.id, ...documents[1]! });
    release();
    const iteration = await running;
    const ids = iteration.predictions.map((p) => p.document_id);
    expect(ids).not.toContain(removed);
    expect(iteration.predictions.find((p) => p.document_id === gone)).toEqual({ document_id: gone, prediction: {}, metadata: null });
    const summary = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id, view: 'summary' });
    expect(summary.progress).toEqual({ total: 3, succeeded: 2, failed: 0, pending: 1 });
    const page = await docevals.evals.iterations.predictions(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id });
    expect(page.data.map((p) => [p.document_id, p.status])).toEqual([
      [evaluation.documents[0]!.id, 'succeeded'],
      [evaluation.documents[3]!.id, 'succeeded'],
      [gone, 'pending'],
    ]);
  });

  it('saves each prediction as it completes, before the iteration ends', async () => {
    const storage = memoryStorage();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let firstDone = false;
    const extractor = {
      name: 'staged',
      models: ['staged'],
      async extract({ document }: { document: { filename: string; bytes: Uint8Array } }) {
        if (document.filename === 'slow.json') await gate;
        else firstDone = true;
        return { data: { total: 1 } };
      },
    };
    const docevals = makeService({ storage, extractors: [extractor] });
    const evaluation = await docevals.evals.create(ORG, {
      name: 'staged',
      json_schema: invoiceSchema,
      default_inference_settings: { model: 'staged' },
      documents: [invoiceDocument('fast.json', { a: 1 }, { total: 1 }), invoiceDocument('slow.json', { b: 1 }, { total: 1 })],
    });
    const running = docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    while (!firstDone) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => setTimeout(r, 20));
    const iterations = await storage.iterations.list(ORG, { limit: 10, order: 'asc' });
    expect(iterations!.items).toHaveLength(1);
    const saved = await storage.predictions.totals(ORG, iterations!.items[0]!.id);
    expect(saved.count).toBe(1);
    expect(iterations!.items[0]!.status).toBe('running');
    release();
    await running;
  });

  it('deletes an evaluation with one document step and one step per iteration, and leaves no child behind', async () => {
    const writes: Array<{ collection: string; bytes: number }> = [];
    const storage = memoryStorage({ onWrite: (w) => writes.push(w) });
    const docevals = makeService({ storage });
    const { evaluation, iterations } = await evaluationWith(docevals, 30, 2);
    writes.length = 0;
    await docevals.evals.delete(ORG, { evaluation_id: evaluation.id });
    expect(writes.filter((w) => w.collection === 'documents')).toHaveLength(1);
    expect(writes.filter((w) => w.collection === 'predictions')).toHaveLength(2);
    expect(await storage.documents.totals(ORG, evaluation.id)).toMatchObject({ count: 0 });
    for (const it of iterations) expect(await storage.predictions.totals(ORG, it.id)).toMatchObject({ count: 0 });
    expect(await storage.files.get(ORG, evaluation.documents[0]!.id)).toBeNull();
  });

  it('marks a re-run that stops on a storage failure as failed, keeping what was saved', async () => {
    const storage = memoryStorage();
    const docevals = makeService({ storage });
    const { evaluation, iterations } = await evaluationWith(docevals, 2, 1);
    const ref = { evaluation_id: evaluation.id, iteration_id: iterations[0]!.id };
    // The file of the second document disappears from the store (as after a lost disk): its extraction cannot start.
    await storage.files.release(ORG, evaluation.documents[1]!.id);
    await expect(docevals.evals.iterations.process(ORG, ref)).rejects.toMatchObject({ code: 'storage_error' });
    const summary = await docevals.evals.iterations.get(ORG, { ...ref, view: 'summary' });
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatch(/no content for file/);
    expect(summary.progress.succeeded).toBe(2);
  });
});
