import { describe, expect, it } from 'vitest';
import { data, dataUrl, failure } from './expect-outcome.js';
import type { Transport } from './transport.js';

const SCHEMA = { type: 'object', properties: { n: { type: 'number' }, text: { type: 'string' } } };

/** An evaluation of `n` documents with one imported iteration whose predictions are right except every third. */
async function evaluationOf(transport: () => Transport, n: number) {
  const documents = Array.from({ length: n }, (_, i) => ({
    mime_data: { filename: `d${i}.json`, url: dataUrl(JSON.stringify({ n: i }), 'application/json') },
    annotation: { n: i, text: `document ${i}` },
  }));
  const predictions = documents.map((d, i) => ({ prediction: i % 3 === 0 ? { n: -1 } : d.annotation }));
  return data(
    transport().call('evals.create', { name: 'paged', json_schema: SCHEMA, documents, iterations: [{ inference_settings: { model: 'imported' }, predictions }] }),
  );
}
const predictionsOf = (transport: () => Transport, evaluation: any, input: Record<string, unknown> = {}) =>
  transport().call('evals.iterations.predictions', { evaluation_id: evaluation.id, iteration_id: evaluation.iterations[0].id, ...input });

export function pagedReadsCases(transport: () => Transport): void {
  summaryCases(transport);
  pagingCases(transport);
}

function summaryCases(transport: () => Transport): void {
  describe('summary reads', () => {
    it('gets and lists iteration summaries, without per-document arrays', async () => {
      const evaluation = await evaluationOf(transport, 6);
      const ref = { evaluation_id: evaluation.id, iteration_id: evaluation.iterations[0].id };
      const summary = await data(transport().call('evals.iterations.getSummary', ref));
      expect(summary).toMatchObject({
        id: ref.iteration_id,
        status: 'completed',
        progress: { total: 6, succeeded: 6, failed: 0, pending: 0 },
        metric_results: { metric_type: 'levenshtein' },
      });
      expect(summary).not.toHaveProperty('predictions');
      expect(summary.metric_results).not.toHaveProperty('item_metrics');
      expect(summary.metric_results.mean_similarity).toBeCloseTo(evaluation.iterations[0].metric_results.mean_similarity, 12);
      expect(await data(transport().call('evals.iterations.listSummaries', { evaluation_id: evaluation.id, model: 'imported' }))).toEqual({ data: [summary] });
      expect((await data(transport().call('evals.iterations.get', ref))).predictions).toHaveLength(6);
    });

    it('gets an evaluation summary without its documents: their count and the iteration summaries', async () => {
      const evaluation = await evaluationOf(transport, 4);
      const summary = await data(transport().call('evals.getSummary', { evaluation_id: evaluation.id }));
      expect(summary).toMatchObject({ id: evaluation.id, name: 'paged', document_count: 4, schema_id: evaluation.schema_id });
      expect(summary).not.toHaveProperty('documents');
      const iteration = await data(transport().call('evals.iterations.getSummary', { evaluation_id: evaluation.id, iteration_id: evaluation.iterations[0].id }));
      expect(summary.iterations).toEqual([iteration]);
      expect(await data(transport().call('evals.get', { evaluation_id: evaluation.id }))).toEqual(evaluation);
    });
  });
}

function pagingCases(transport: () => Transport): void {
  describe('paged predictions and lists', () => {
    it('pages predictions with their metrics in document order, by limit and after', async () => {
      const evaluation = await evaluationOf(transport, 7);
      const ids = evaluation.documents.map((d: { id: string }) => d.id);
      const first = await data(predictionsOf(transport, evaluation, { limit: 3 }));
      expect(first.data.map((p: any) => p.document_id)).toEqual(ids.slice(0, 3));
      expect(first.data[0]).toMatchObject({ status: 'succeeded', prediction: { n: -1 }, metrics: { id: ids[0], name: 'd0.json' } });
      expect(first.data[1].metrics.similarity).toBe(1);
      expect(first.list_metadata).toEqual({ before: null, after: ids[2] });
      const second = await data(predictionsOf(transport, evaluation, { limit: 100, after: first.list_metadata.after }));
      expect(second.data.map((p: any) => p.document_id)).toEqual(ids.slice(3));
      expect(second.list_metadata).toEqual({ before: ids[3], after: null });

      expect((await failure(predictionsOf(transport, evaluation, { limit: 0 }))).code).toBe('validation_error');
      expect((await failure(predictionsOf(transport, evaluation, { after: 'nobody' }))).issues?.[0]?.path).toBe('after');
      const missing = transport().call('evals.iterations.predictions', { evaluation_id: evaluation.id, iteration_id: 'eval_iter_missing' });
      expect(await failure(missing)).toMatchObject({ status: 404, code: 'not_found' });
    });

    it('answers document_ids with those documents only, in that order, paged by limit and after', async () => {
      const evaluation = await evaluationOf(transport, 7);
      const ids: string[] = evaluation.documents.map((d: { id: string }) => d.id);
      const all = (await data(predictionsOf(transport, evaluation, { limit: 10 }))).data;
      expect(await data(predictionsOf(transport, evaluation, { document_ids: [ids[5], ids[0]] }))).toEqual({ data: [all[5], all[0]], list_metadata: { before: null, after: null } });
      const twice = await data(predictionsOf(transport, evaluation, { document_ids: [ids[3], ids[6], ids[3], ids[1]] }));
      expect(twice.data.map((p: any) => p.document_id)).toEqual([ids[3], ids[6], ids[1]]);
      const named = [ids[6], ids[2], ids[4]];
      const first = await data(predictionsOf(transport, evaluation, { document_ids: named, limit: 2 }));
      expect(first).toEqual({ data: [all[6], all[2]], list_metadata: { before: null, after: ids[2] } });
      expect(await data(predictionsOf(transport, evaluation, { document_ids: named, limit: 2, after: ids[2] }))).toEqual({ data: [all[4]], list_metadata: { before: ids[4], after: null } });
    });

    it('refuses document_ids naming no document of the evaluation, at each index', async () => {
      const evaluation = await evaluationOf(transport, 2);
      const known = evaluation.documents[0].id;
      const unknown = await failure(predictionsOf(transport, evaluation, { document_ids: [known, 'file_0000000000000000'] }));
      expect(unknown.code).toBe('validation_error');
      expect(unknown.issues).toEqual([{ path: 'document_ids.1', message: 'no document file_0000000000000000 in this evaluation' }]);
      expect((await failure(predictionsOf(transport, evaluation, { document_ids: [''] }))).issues).toEqual([{ path: 'document_ids.0', message: 'an id is required' }]);
      // 200 unknown ids reach the core: the first 100 named, the rest counted.
      const many = Array.from({ length: 200 }, (_, i) => `file_${i.toString(16).padStart(16, '0')}`);
      const long = await failure(predictionsOf(transport, evaluation, { document_ids: many }));
      expect(long.issues).toHaveLength(101);
      expect(long.issues?.[99]).toEqual({ path: 'document_ids.99', message: `no document ${many[99]} in this evaluation` });
      expect(long.issues?.[100]?.message).toBe('100 more issues not listed; fix these first');
    });

    it('lists documents and evaluations as summaries, whole with expand=documents (at most 10 a page)', async () => {
      const evaluation = await evaluationOf(transport, 2);
      const id = evaluation.documents[0].id;
      const documents = await data(transport().call('evals.documents.list', { evaluation_id: evaluation.id }));
      expect(documents.data[0]).toEqual({
        id,
        filename: 'd0.json',
        mime_type: 'application/json',
        size: expect.any(Number),
        mime_data: { filename: 'd0.json', url: `/v1/evals/${evaluation.id}/documents/${id}/content` },
      });
      const expanded = await data(transport().call('evals.documents.list', { evaluation_id: evaluation.id, expand: 'documents' }));
      expect(expanded.data).toEqual(evaluation.documents);
      expect((await failure(transport().call('evals.list', { expand: 'documents', limit: 50 }))).code).toBe('validation_error');
      const listed = await data(transport().call('evals.list', { limit: 1 }));
      expect(listed.data[0]).toMatchObject({ id: evaluation.id, document_count: 2 });
      expect(listed.data[0].documents[0].mime_data.url).not.toMatch(/^data:/);
      expect(listed.data[0].iterations[0]).toHaveProperty('progress');
      expect((await data(transport().call('evals.list', { expand: 'documents', limit: 1 }))).data[0].documents[0]).toEqual(evaluation.documents[0]);
    });
  });
}
