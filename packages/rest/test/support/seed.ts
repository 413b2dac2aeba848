import { afterAll, beforeAll, expect } from 'vitest';
import { evaluationBody, processorBody } from './fixtures.js';
import { startRestServer, type RestServer } from './rest-server.js';

/** One evaluation with one document and one local-rules iteration, and one processor, all of org A. */
export async function seed(server: RestServer, key?: string) {
  const evaluation = await server.call('POST', '/v1/evals', { key, body: evaluationBody() });
  expect(evaluation.status).toBe(200);
  const iteration = await server.call('POST', `/v1/evals/${evaluation.body.id}/iterations/create`, {
    key,
    body: { inference_settings: { model: 'local-rules' } },
  });
  expect(iteration.status).toBe(200);
  const processor = await server.call('POST', '/v1/processors', { key, body: processorBody() });
  expect(processor.status).toBe(200);
  return {
    evaluationId: evaluation.body.id as string,
    documentId: evaluation.body.documents[0].id as string,
    iterationId: iteration.body.id as string,
    processorId: processor.body.id as string,
  };
}

export type Seeded = Awaited<ReturnType<typeof seed>>;

/**
 * A REST server on 127.0.0.1 holding {@link seed}'s objects, for the tests of one file: `served.api` and `served.ids`
 * are set once its `beforeAll` ran; the server closes after the file.
 */
export function seededServer(): { api: RestServer; ids: Seeded } {
  const served = {} as { api: RestServer; ids: Seeded };
  beforeAll(async () => {
    served.api = await startRestServer();
    served.ids = await seed(served.api);
  });
  afterAll(() => served.api.close());
  return served;
}

/**
 * A concrete request for every endpoint of `ENDPOINTS`, with a body the core would accept: the same list drives
 * the 401 and the tenant-isolation tests, so a new endpoint is covered by both.
 */
export function requestsFor(ids: Seeded): Array<{ method: string; path: string; body?: unknown }> {
  const e = `/v1/evals/${ids.evaluationId}`;
  const p = `/v1/processors/${ids.processorId}`;
  return [
    { method: 'POST', path: '/v1/evals', body: evaluationBody() },
    { method: 'GET', path: '/v1/evals' },
    { method: 'GET', path: e },
    { method: 'PATCH', path: e, body: { name: 'Renamed' } },
    { method: 'DELETE', path: e },
    { method: 'POST', path: `${e}/documents`, body: { mime_data: { filename: 'b.txt', url: 'data:text/plain;base64,VG90YWw6IDE=' }, annotation: { total: 1 } } },
    { method: 'GET', path: `${e}/documents` },
    { method: 'GET', path: `${e}/documents/${ids.documentId}` },
    { method: 'PUT', path: `${e}/documents/${ids.documentId}`, body: { annotation: { total: 1 } } },
    { method: 'DELETE', path: `${e}/documents/${ids.documentId}` },
    { method: 'GET', path: `${e}/iterations?model=local-rules` },
    { method: 'POST', path: `${e}/iterations/create`, body: { inference_settings: { model: 'local-rules' } } },
    { method: 'GET', path: `${e}/iterations/${ids.iterationId}` },
    { method: 'DELETE', path: `${e}/iterations/${ids.iterationId}` },
    { method: 'POST', path: `${e}/iterations/${ids.iterationId}/process`, body: {} },
    { method: 'POST', path: '/v1/processors', body: processorBody() },
    { method: 'GET', path: '/v1/processors' },
    { method: 'GET', path: p },
    { method: 'PUT', path: p, body: { temperature: 1 } },
    { method: 'DELETE', path: p },
    { method: 'POST', path: `${p}/submit`, body: { document: { filename: 'c.txt', url: 'data:text/plain;base64,VG90YWw6IDI=' } } },
    { method: 'GET', path: '/v1/openapi.json' },
    { method: 'GET', path: '/v1/models' },
  ];
}
