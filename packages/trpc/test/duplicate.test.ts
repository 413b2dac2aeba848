import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals, type Docevals } from '@docevals/core';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveRouter, type ServedRouter } from './serve-router.js';

// evals.duplicate was added as a row of the core's table only: its procedure comes from that row.

const INVOICE = `data:text/plain;base64,${Buffer.from('Invoice number: INV-1\nTotal: 42\n').toString('base64')}`;

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

it('evals.duplicate copies an evaluation with its ground truth; NOT_FOUND for another organization', async () => {
  const client = served.client('key_org_a');
  const source = await client.evals.create.mutate({
    name: 'Invoices',
    json_schema: { type: 'object', properties: { total: { type: 'number' } } },
    documents: [{ mime_data: { filename: 'a.txt', url: INVOICE }, annotation: { total: 42 } }],
  });
  const copy = await client.evals.duplicate.mutate({ evaluation_id: source.id, name: 'Invoices v2' });
  expect(copy).toMatchObject({ name: 'Invoices v2', document_count: 1, iterations: [] });
  const documents = await client.evals.documents.list.query({ evaluation_id: copy.id });
  expect(documents.data.map((d) => d.id)).toEqual([source.documents[0]!.id]);

  const other = served.client('key_org_b');
  const refused = await other.evals.duplicate.mutate({ evaluation_id: source.id }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(TRPCClientError);
  expect((refused as TRPCClientError<never>).data).toMatchObject({ code: 'NOT_FOUND' });
});
