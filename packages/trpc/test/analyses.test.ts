import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals, type Docevals } from '@docevals/core';
import { createTRPCClient, httpBatchStreamLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocevalsRouter } from '../src/index.js';
import { serveRouter, type ServedRouter } from './serve-router.js';

const dataUrl = (text: string) => `data:text/plain;base64,${Buffer.from(text).toString('base64')}`;
const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };

let docevals: Docevals;
let served: ServedRouter;
let evaluationId: string;
let baseId: string;
let headId: string;

beforeAll(async () => {
  docevals = createDocevals({ storage: memoryStorage() });
  served = await serveRouter(docevals);
  const evaluation = await served.client('key_org_a').evals.create.mutate({
    name: 'Invoices',
    json_schema: SCHEMA,
    documents: [
      { mime_data: { filename: 'a.txt', url: dataUrl('a') }, annotation: { invoice_number: 'INV-1', total: 42 } },
      { mime_data: { filename: 'b.txt', url: dataUrl('b') }, annotation: { invoice_number: 'INV-2', total: 7 } },
    ],
    iterations: [
      { inference_settings: { model: 'base' }, predictions: [{ prediction: { invoice_number: 'INV-1', total: 42 } }, { prediction: { invoice_number: 'INV-2', total: 7 } }] },
      { inference_settings: { model: 'head' }, predictions: [{ prediction: { invoice_number: 'INV-1', total: 1 } }, { prediction: { invoice_number: 'INV-2', total: 7 } }] },
    ],
  });
  evaluationId = evaluation.id;
  [baseId, headId] = evaluation.iterations.map((it) => it.id) as [string, string];
});
afterAll(async () => {
  await served.close();
  await docevals.close();
});

describe('analyses through tRPC', () => {
  it('compare, leaderboard and fields answer typed results', async () => {
    const client = served.client('key_org_a');
    const comparison = await client.evals.compare.query({ evaluation_id: evaluationId, base: baseId, head: headId });
    expect(comparison.fields[0]).toMatchObject({ field: 'total', base_mean: 1 });
    expect(comparison.regressed.map((d) => d.filename)).toEqual(['a.txt']);
    const board = await client.evals.leaderboard.query({ evaluation_id: evaluationId });
    expect(board.rows[0]!.iteration_id).toBe(baseId);
    const fields = await client.evals.iterations.fields.query({ evaluation_id: evaluationId, iteration_id: headId });
    expect(fields.fields[0]!.field).toBe('total');
  });

  it('imports annotations and streams an export over httpBatchStreamLink', async () => {
    const client = served.client('key_org_a');
    const imported = await client.evals.documents.import.mutate({
      evaluation_id: evaluationId,
      format: 'jsonl',
      content: '{"filename":"a.txt","annotation":{"invoice_number":"INV-1","total":1}}\n',
    });
    expect(imported).toMatchObject({ updated: 1, refused: 0 });
    const streaming = createTRPCClient<DocevalsRouter>({
      links: [httpBatchStreamLink({ url: served.url, headers: { 'Api-Key': 'key_org_a' } })],
    });
    let text = '';
    for await (const chunk of await streaming.evals.iterations.export.query({ evaluation_id: evaluationId, iteration_id: headId, format: 'jsonl' })) {
      text += chunk;
    }
    const rows = text.trim().split('\n').map((line) => JSON.parse(line));
    expect(rows).toHaveLength(4);
    expect(rows[1]).toMatchObject({ field: 'total', annotation: 1, prediction: 1, similarity: 1 });
  });

  it("refuses another organization's iteration", async () => {
    await expect(served.client('key_org_b').evals.compare.query({ evaluation_id: evaluationId, base: baseId, head: headId })).rejects.toThrow();
  });
});
