import { Buffer } from 'node:buffer';
import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals } from '@docevals/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveRouter, type ServedRouter } from './serve-router.js';

let served: ServedRouter;
beforeAll(async () => {
  served = await serveRouter(createDocevals({ storage: memoryStorage() }));
});
afterAll(() => served.close());

const dataUrl = (text: string) => `data:application/json;base64,${Buffer.from(text).toString('base64')}`;

describe('summary and paged reads over tRPC', () => {
  it('gets and lists iteration summaries, pages predictions, and lists summaries of documents and evaluations', async () => {
    const client = served.client('key_org_a');
    const documents = [0, 1, 2].map((i) => ({ mime_data: { filename: `d${i}.json`, url: dataUrl(JSON.stringify({ i })) }, annotation: { n: i } }));
    const evaluation = await client.evals.create.mutate({
      name: 'paged',
      json_schema: { type: 'object' },
      documents,
      iterations: [{ inference_settings: { model: 'imported' }, predictions: [{ prediction: { n: 0 } }, { prediction: { n: 5 } }, { prediction: { n: 2 } }] }],
    });
    const ref = { evaluation_id: evaluation.id, iteration_id: evaluation.iterations[0]!.id };

    const summary = await client.evals.iterations.getSummary.query(ref);
    expect(summary).toMatchObject({ status: 'completed', progress: { total: 3, succeeded: 3, failed: 0, pending: 0 } });
    expect(summary.metric_results.mean_similarity).toBeCloseTo(evaluation.iterations[0]!.metric_results.mean_similarity, 12);
    expect(summary).not.toHaveProperty('predictions');
    expect((await client.evals.iterations.listSummaries.query({ evaluation_id: evaluation.id })).data).toEqual([summary]);
    expect((await client.evals.iterations.get.query(ref)).predictions).toHaveLength(3);

    const page = await client.evals.iterations.predictions.query({ ...ref, limit: 2 });
    expect(page.data.map((p) => [p.document_id, p.status, p.metrics.similarity])).toEqual([
      [evaluation.documents[0]!.id, 'succeeded', 1],
      [evaluation.documents[1]!.id, 'succeeded', expect.any(Number)],
    ]);
    const rest = await client.evals.iterations.predictions.query({ ...ref, after: page.list_metadata.after! });
    expect(rest.data.map((p) => p.document_id)).toEqual([evaluation.documents[2]!.id]);

    // One document's prediction by its id, without paging (the filter comes with the core's input schema).
    const one = await client.evals.iterations.predictions.query({ ...ref, document_ids: [evaluation.documents[1]!.id] });
    expect(one).toEqual({ data: [page.data[1]], list_metadata: { before: null, after: null } });
    await expect(client.evals.iterations.predictions.query({ ...ref, document_ids: ['file_0000000000000000'] })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST', docevalsCode: 'validation_error', issues: [{ path: 'document_ids.0' }] },
    });

    const overview = await client.evals.getSummary.query({ evaluation_id: evaluation.id });
    expect(overview).toMatchObject({ id: evaluation.id, name: 'paged', document_count: 3, iterations: [summary] });
    expect(overview).not.toHaveProperty('documents');

    const listed = await client.evals.documents.list.query({ evaluation_id: evaluation.id });
    expect(listed.data[0]).toEqual({
      id: evaluation.documents[0]!.id,
      filename: 'd0.json',
      mime_type: 'application/json',
      size: 7,
      mime_data: { filename: 'd0.json', url: `/v1/evals/${evaluation.id}/documents/${evaluation.documents[0]!.id}/content` },
    });
    const evaluations = await client.evals.list.query({ expand: 'documents', limit: 1 });
    expect(evaluations.data[0]!.documents[0]).toEqual(evaluation.documents[0]);
  });
});
