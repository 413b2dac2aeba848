import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_PATH, demoSetup } from '../src/docevals-setup.js';
import { createExpressApp } from '../src/express.js';
import { createFastifyApp } from '../src/fastify.js';
import { createNodeHttpServer } from '../src/node-http.js';

const KEY = 'mount-test-key';
const INVOICE_URL = `data:text/plain;base64,${Buffer.from('Invoice number: INV-9\nTotal: 12\n').toString('base64')}`;
const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };

interface Host {
  origin: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<Host> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const hosts: Record<string, () => Promise<Host>> = {
  'node:http': () => listen(createNodeHttpServer(demoSetup(KEY))),
  'Express with express.json() before it': () => listen(createExpressApp(demoSetup(KEY)).listen(0, '127.0.0.1')),
  Fastify: async () => {
    const app = createFastifyApp(demoSetup(KEY));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return { origin: `http://127.0.0.1:${port}`, close: () => app.close() };
  },
};

describe.each(Object.keys(hosts))('docevals mounted under %s', (name) => {
  let host: Host;
  beforeAll(async () => {
    host = await hosts[name]!();
  });
  afterAll(() => host.close());

  const call = async (method: string, path: string, init: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { 'api-key': KEY, ...init.headers };
    let body: string | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${host.origin}${BASE_PATH}${path}`, { method, headers, body });
    const text = await response.text();
    let json: any = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, headers: response.headers, body: json };
  };

  it('runs the seed flow under the base path', async () => {
    const created = await call('POST', '/v1/evals', {
      body: {
        name: 'Mounted',
        json_schema: SCHEMA,
        documents: [{ mime_data: { filename: 'i.txt', url: INVOICE_URL }, annotation: { invoice_number: 'INV-9', total: 12 } }],
      },
    });
    expect(created.status).toBe(200);
    const id = created.body.id;
    expect((await call('PATCH', `/v1/evals/${id}`, { body: { name: 'Mounted 2' } })).body.name).toBe('Mounted 2');
    const iteration = await call('POST', `/v1/evals/${id}/iterations/create`, { body: { inference_settings: { model: 'local-rules' } } });
    expect(iteration.status).toBe(200);
    expect(iteration.body.metric_results.mean_similarity).toBe(1);
    const listed = await call('GET', `/v1/evals/${id}/iterations?model=local-rules`);
    expect(listed.body.data).toHaveLength(1);
    const documentId = created.body.documents[0].id;
    const annotated = await call('PUT', `/v1/evals/${id}/documents/${documentId}`, { body: { annotation: { invoice_number: 'INV-9', total: 13 } } });
    expect(annotated.body.annotation.total).toBe(13);
    const processor = await call('POST', '/v1/processors', { body: { name: 'P', model: 'local-rules', json_schema: SCHEMA } });
    expect(processor.status).toBe(200);
    const updated = await call('PUT', `/v1/processors/${processor.body.id}`, { body: { temperature: 1 } });
    expect(updated.body).toMatchObject({ name: 'P', temperature: 1 });
  });

  it('keeps the host its own routes, and answers health and errors in the docevals shape', async () => {
    expect(await (await fetch(`${host.origin}/`)).text()).toContain('the host application');
    expect((await fetch(`${host.origin}${BASE_PATH}/health`)).status).toBe(200);
    const unauthorized = await call('GET', '/v1/evals', { headers: { 'api-key': 'wrong' } });
    expect(unauthorized).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    const unknown = await call('GET', '/v1/unknown');
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const method = await call('DELETE', '/v1/evals');
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('POST, GET, HEAD');
    const broken = await call('POST', '/v1/evals', { raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(broken).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } });
    const text = await call('POST', '/v1/evals', { raw: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(text).toMatchObject({ status: 415, body: { error: { code: 'unsupported_media_type' } } });
    const wrong = await call('POST', '/v1/evals', { body: { name: 1, json_schema: [] } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.issues.map((i: { path: string }) => i.path)).toEqual(expect.arrayContaining(['name', 'json_schema']));
  });

  it('refuses JSON nested 100,000 levels deep with a 422, whoever parsed it', async () => {
    const deep = '{"a":'.repeat(99_999) + '{}' + '}'.repeat(99_999);
    const r = await call('POST', '/v1/processors', {
      raw: `{"name":"deep","model":"local-rules","json_schema":${deep}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('validation_error');
    expect((await call('GET', '/v1/processors')).status).toBe(200);
  });
});
