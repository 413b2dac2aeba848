import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals, type Docevals } from '@docevals/core';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DocevalsRouter } from '../src/index.js';
import { serveRouter, type ServedRouter } from './serve-router.js';

// The two procedures added with the reference SDK's REST paths: evals.iterations.update and .distances.

const INVOICE = `data:text/plain;base64,${Buffer.from('Invoice number: INV-1\nTotal: 42\n').toString('base64')}`;
const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };

let docevals: Docevals;
let served: ServedRouter;
beforeAll(async () => {
  docevals = createDocevals({ storage: memoryStorage() });
  served = await serveRouter(docevals);
});
afterAll(async () => {
  await served.close();
  await docevals.close();
});

it('updates an iteration, re-running it, and answers one document\'s distances; NOT_FOUND for another organization', async () => {
  const client = served.client('key_org_a');
  const evaluation = await client.evals.create.mutate({
    name: 'Invoices',
    json_schema: SCHEMA,
    documents: [{ mime_data: { filename: 'a.txt', url: INVOICE }, annotation: { invoice_number: 'INV-7', total: 42 } }],
  });
  const iteration = await client.evals.iterations.create.mutate({ evaluation_id: evaluation.id, inference_settings: { model: 'local-rules' } });
  const ref = { evaluation_id: evaluation.id, iteration_id: iteration.id };

  const updated = await client.evals.iterations.update.mutate({ ...ref, inference_settings: { temperature: 1 } });
  expect(updated.inference_settings.temperature).toBe(1);
  expect(updated.predictions[0]!.metadata?.extraction_id).not.toBe(iteration.predictions[0]!.metadata?.extraction_id);

  const distances = await client.evals.iterations.distances.query({ ...ref, document_id: evaluation.documents[0]!.id });
  expect(distances).toEqual({ distances: { invoice_number: 0.25, total: 0 }, mean_distance: 0.125, metric_type: 'levenshtein' });

  const other = await served
    .client('key_org_b')
    .evals.iterations.distances.query({ ...ref, document_id: evaluation.documents[0]!.id })
    .catch((e: unknown) => e as TRPCClientError<DocevalsRouter>);
  expect(other).toBeInstanceOf(TRPCClientError);
  expect((other as TRPCClientError<DocevalsRouter>).data).toMatchObject({ code: 'NOT_FOUND', docevalsCode: 'not_found' });
});
