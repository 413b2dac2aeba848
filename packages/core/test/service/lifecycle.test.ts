import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../support/memory-storage.js';
import type { Storage } from '@docevals/core';
import { createInvoices, invoiceDocument, invoiceSchema, jsonFileExtractor, makeService, ORG } from './fixtures.js';

describe('lifecycle rules of the service', () => {
  it('keeps a file while another evaluation refers to it, and deletes an evaluation with its iterations', async () => {
    const storage = memoryStorage();
    const docevals = makeService({ storage });
    const shared = invoiceDocument('shared.json', { total: 1 }, { total: 1 });
    const first = await docevals.evals.create(ORG, { name: 'one', json_schema: invoiceSchema, documents: [shared] });
    const fileId = first.documents[0]!.id;
    // The second evaluation names the stored file by id: no content sent.
    const second = await docevals.evals.create(ORG, {
      name: 'two',
      json_schema: invoiceSchema,
      documents: [{ mime_data: { filename: 'again.json', file_id: fileId }, annotation: { total: 1 } }],
    });
    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id: first.id, inference_settings: { model: 'json-file' } });

    expect(await docevals.evals.delete(ORG, { evaluation_id: first.id })).toEqual({ id: first.id, deleted: true, success: true });
    await expect(docevals.evals.get(ORG, { evaluation_id: first.id })).rejects.toMatchObject({ code: 'not_found' });
    expect(await storage.iterations.get(ORG, iteration.id)).toBeNull();
    expect(await storage.files.get(ORG, fileId)).not.toBeNull();
    expect((await docevals.evals.get(ORG, { evaluation_id: second.id })).documents[0]!.mime_data.url).toBe(shared.mime_data.url);

    await docevals.evals.documents.delete(ORG, { evaluation_id: second.id, document_id: fileId });
    expect(await storage.files.get(ORG, fileId)).toBeNull();
  });

  it('releases only the references the deleted evaluation held, when a document went meanwhile', async () => {
    const base = memoryStorage();
    // Runs `beforeDelete` once, between the service's read of the evaluation and its deletion in the store.
    let beforeDelete: (() => Promise<unknown>) | undefined;
    const storage: Storage = {
      ...base,
      evaluations: {
        ...base.evaluations,
        async delete(organizationId, id, expectedVersion) {
          const run = beforeDelete;
          beforeDelete = undefined;
          if (run) await run();
          return base.evaluations.delete(organizationId, id, expectedVersion);
        },
      },
    };
    const docevals = makeService({ storage });
    const shared = invoiceDocument('shared.json', { total: 1 }, { total: 1 });
    const first = await docevals.evals.create(ORG, { name: 'one', json_schema: invoiceSchema, documents: [shared] });
    const second = await docevals.evals.create(ORG, { name: 'two', json_schema: invoiceSchema, documents: [shared] });
    const fileId = first.documents[0]!.id;

    beforeDelete = () => docevals.evals.documents.delete(ORG, { evaluation_id: first.id, document_id: fileId });
    await docevals.evals.delete(ORG, { evaluation_id: first.id });

    // The second evaluation's reference is intact: the file was released once (by the document delete), not twice.
    expect(await storage.files.get(ORG, fileId)).not.toBeNull();
    expect((await docevals.evals.get(ORG, { evaluation_id: second.id })).documents[0]!.id).toBe(fileId);
  });

  it('pages evaluations newest first by default, with cursors, list_metadata and exact filters', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const docevals = makeService({ now: () => new Date((clock += 1000)) });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await docevals.evals.create(ORG, { name: `e${i}`, project_id: i % 2 ? 'odd' : 'even', json_schema: invoiceSchema })).id);
    }
    const newest = [...ids].reverse();
    const page1 = await docevals.evals.list(ORG, { limit: 2 });
    expect(page1.data.map((e) => e.id)).toEqual(newest.slice(0, 2));
    expect(page1.list_metadata).toEqual({ before: null, after: newest[1] });
    const page2 = await docevals.evals.list(ORG, { limit: 2, after: page1.list_metadata.after! });
    expect(page2.data.map((e) => e.id)).toEqual(newest.slice(2, 4));
    expect(page2.list_metadata).toEqual({ before: newest[2], after: newest[3] });
    const page3 = await docevals.evals.list(ORG, { limit: 2, after: page2.list_metadata.after! });
    expect(page3.data.map((e) => e.id)).toEqual(newest.slice(4));
    expect(page3.list_metadata).toEqual({ before: newest[4], after: null });
    const back = await docevals.evals.list(ORG, { limit: 2, before: page3.list_metadata.before! });
    expect(back.data.map((e) => e.id)).toEqual(newest.slice(2, 4));
    expect(back.list_metadata).toEqual({ before: newest[2], after: newest[3] });

    const ascending = await docevals.evals.list(ORG, { order: 'asc', limit: 10 });
    expect(ascending.data.map((e) => e.id)).toEqual(ids);
    const odd = await docevals.evals.list(ORG, { project_id: 'odd' });
    expect(odd.data.map((e) => e.name)).toEqual(['e3', 'e1']);

    // An update moves an evaluation to the front: the order is by updated_at.
    await docevals.evals.update(ORG, { evaluation_id: ids[0]!, name: 'touched' });
    expect((await docevals.evals.list(ORG, { limit: 1 })).data[0]!.id).toBe(ids[0]);
  });

  it('lists documents in the evaluation order, or its reverse, with id cursors', async () => {
    const docevals = makeService();
    const evaluation = await docevals.evals.create(ORG, {
      name: 'docs',
      json_schema: invoiceSchema,
      documents: [0, 1, 2, 3].map((i) => invoiceDocument(`d${i}.json`, { n: i }, {})),
    });
    const order = evaluation.documents.map((d) => d.id);
    const first = await docevals.evals.documents.list(ORG, { evaluation_id: evaluation.id, limit: 3 });
    expect(first.data.map((d) => d.id)).toEqual(order.slice(0, 3));
    expect(first.list_metadata).toEqual({ before: null, after: order[2] });
    const rest = await docevals.evals.documents.list(ORG, { evaluation_id: evaluation.id, limit: 3, after: order[2]! });
    expect(rest.data.map((d) => d.id)).toEqual([order[3]]);
    expect(rest.list_metadata.after).toBeNull();
    const reversed = await docevals.evals.documents.list(ORG, { evaluation_id: evaluation.id, order: 'desc' });
    expect(reversed.data.map((d) => d.id)).toEqual([...order].reverse());
  });

  it('keeps annotation_metadata when a PUT omits it, and replaces it when the PUT carries it', async () => {
    const docevals = makeService();
    const evaluation = await docevals.evals.create(ORG, {
      name: 'meta',
      json_schema: invoiceSchema,
      documents: [{ ...invoiceDocument('a.json', {}, { total: 1 }), annotation_metadata: { extraction_id: 'human-1' } }],
    });
    const ref = { evaluation_id: evaluation.id, document_id: evaluation.documents[0]!.id };
    const kept = await docevals.evals.documents.update(ORG, { ...ref, annotation: { total: 2 } });
    expect(kept.annotation_metadata).toMatchObject({ extraction_id: 'human-1' });
    const replaced = await docevals.evals.documents.update(ORG, { ...ref, annotation: { total: 3 }, annotation_metadata: null });
    expect(replaced.annotation_metadata).toBeNull();
  });

  it('re-runs only the documents that have no prediction or failed, with only_missing', async () => {
    const calls: string[] = [];
    const docevals = makeService({ extractors: [jsonFileExtractor({ calls })] });
    const evaluation = await createInvoices(docevals, {
      name: 'retry',
      documents: [invoiceDocument('ok.json', { total: 1 }, { total: 1 }), invoiceDocument('bad.json', { fail: true }, { total: 2 })],
    });
    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    calls.length = 0;
    await docevals.evals.iterations.process(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id, only_missing: true });
    expect(calls).toEqual(['bad.json']);
    calls.length = 0;
    await docevals.evals.iterations.process(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id });
    expect(calls.sort()).toEqual(['bad.json', 'ok.json']);
  });

  it('matches imported predictions by document_id, in any order', async () => {
    const docevals = makeService();
    const documents = [invoiceDocument('a.json', { a: 1 }, { total: 1 }), invoiceDocument('b.json', { b: 1 }, { total: 2 })];
    const draft = await docevals.evals.create(ORG, { name: 'ids', json_schema: invoiceSchema, documents });
    const [a, b] = draft.documents.map((d) => d.id);
    const evaluation = await docevals.evals.create(ORG, {
      name: 'imported',
      json_schema: invoiceSchema,
      documents,
      iterations: [{ inference_settings: { model: 'm' }, predictions: [{ document_id: b, prediction: { total: 2 } }, { document_id: a, prediction: { total: 1 } }] }],
    });
    const [iteration] = evaluation.iterations;
    expect(iteration!.predictions.map((p) => [p.document_id, p.prediction])).toEqual([[a, { total: 1 }], [b, { total: 2 }]]);
    expect(iteration!.metric_results.mean_similarity).toBe(1);
  });

  it('stores a processor whose model nobody serves yet, and refuses it when it runs', async () => {
    const docevals = makeService();
    const processor = await docevals.processors.create(ORG, { name: 'later', model: 'gpt-not-registered', json_schema: invoiceSchema });
    await expect(
      docevals.processors.submit(ORG, { processor_id: processor.id, document: { filename: 'a.json', url: 'data:application/json;base64,e30=' } }),
    ).rejects.toMatchObject({ code: 'validation_error', issues: [{ path: 'model' }] });
  });

  it('deletes an iteration: gone from the list and from get', async () => {
    const docevals = makeService();
    const evaluation = await createInvoices(docevals, {
      name: 'del',
      documents: [invoiceDocument('a.json', { total: 1 }, { total: 1 })],
    });
    const [kept, removed] = [
      await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id }),
      await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id }),
    ];
    await docevals.evals.iterations.delete(ORG, { evaluation_id: evaluation.id, iteration_id: removed.id });
    expect((await docevals.evals.iterations.list(ORG, { evaluation_id: evaluation.id })).data.map((i) => i.id)).toEqual([kept.id]);
    await expect(
      docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: removed.id }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
