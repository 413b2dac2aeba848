import { afterAll, beforeAll, expect, it } from 'vitest';
import { KEY_B, startRestServer, type RestServer } from './support/rest-server.js';

// evals.duplicate was added as a row of the core's table only: its REST route comes from that row.

const INVOICE = `data:text/plain;base64,${Buffer.from('Invoice number: INV-1\nTotal: 42\n').toString('base64')}`;

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer();
});
afterAll(async () => {
  await api.close();
});

it('POST /v1/evals/{evaluation_id}/duplicate copies the documents and ground truth, not the iterations', async () => {
  const created = await api.call('POST', '/v1/evals', {
    body: {
      name: 'Invoices',
      json_schema: { type: 'object', properties: { total: { type: 'number' } } },
      documents: [{ mime_data: { filename: 'a.txt', url: INVOICE }, annotation: { total: 42 } }],
    },
  });
  expect(created.status).toBe(200);
  const source = created.body;
  expect((await api.call('POST', `/v1/evals/${source.id}/iterations/create`, { body: { inference_settings: { model: 'local-rules' } } })).status).toBe(200);

  // No body at all: every default.
  const copy = await api.call('POST', `/v1/evals/${source.id}/duplicate`);
  expect(copy.status).toBe(200);
  expect(copy.body).toMatchObject({ name: 'Invoices (copy)', document_count: 1, iterations: [] });
  expect(copy.body).not.toHaveProperty('documents');
  const whole = await api.call('GET', `/v1/evals/${copy.body.id}`);
  expect(whole.body.documents.map((d: { id: string; annotation: unknown }) => [d.id, d.annotation])).toEqual([[source.documents[0].id, { total: 42 }]]);

  const named = await api.call('POST', `/v1/evals/${source.id}/duplicate`, { body: { name: 'Invoices v2' } });
  expect(named.body.name).toBe('Invoices v2');

  const before = (await api.call('GET', '/v1/evals')).body.data.length;
  expect((await api.call('POST', `/v1/evals/${source.id}/duplicate`, { body: { name: '' } })).status).toBe(422);
  expect((await api.call('POST', `/v1/evals/${source.id}/duplicate`, { key: KEY_B })).status).toBe(404);
  expect((await api.call('POST', `/v1/evals/${source.id}/duplicate`, { key: null })).status).toBe(401);
  expect((await api.call('GET', '/v1/evals')).body.data.length).toBe(before);
});
