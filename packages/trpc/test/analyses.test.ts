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
  headId = evaluation.iterations[1]!.id;
});
afterAll(async () => {
  await served.close();
  await docevals.close();
});

// compare, leaderboard, fields and import are shared cases (test-support/transport-conformance/); here, the stream.
describe('analyses through tRPC', () => {
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

});
