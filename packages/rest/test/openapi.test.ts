import { ENDPOINTS } from '@docevals/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationBody } from './support/fixtures.js';
import { KEY_A, startRestServer, type RestServer } from './support/rest-server.js';

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({ basePath: '/api/docevals' });
});
afterAll(() => api.close());

describe('the OpenAPI document', () => {
  it('is an OpenAPI 3.1 document with every path and method, served under the base path', async () => {
    const r = await api.call('GET', '/v1/openapi.json');
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.servers).toEqual([{ url: '/api/docevals', description: 'This server' }]);
    for (const endpoint of ENDPOINTS) {
      const operation = doc.paths[endpoint.path]?.[endpoint.method];
      expect(operation, `${endpoint.method} ${endpoint.path}`).toBeDefined();
      expect(operation.operationId).toBe(endpoint.operationId);
      const media = endpoint.sse ? 'text/event-stream' : (endpoint.produces?.fileTypes[0] ?? 'application/json');
      expect(operation.responses['200'].content[media].schema).toBeDefined();
      expect(operation.responses['401']).toBeDefined();
      // create and process: 202 with the summary and a Location when run in the background
      if (endpoint.background) {
        expect(operation.responses['202'].content['application/json'].schema).toBeDefined();
        expect(operation.responses['202'].headers.Location).toBeDefined();
        expect(operation.responses['502']).toBeDefined();
      }
      for (const name of endpoint.path.match(/\{(\w+)\}/g) ?? []) {
        const param = operation.parameters.find((p: { in: string; name: string }) => p.in === 'path' && `{${p.name}}` === name);
        expect(param, `${endpoint.path} ${name}`).toMatchObject({ required: true });
      }
      if (endpoint.body) expect(operation.requestBody.content['application/json'].schema).toBeDefined();
    }
    const interfacePaths = [
      ['post', '/v1/evals'],
      ['patch', '/v1/evals/{evaluation_id}'],
      ['get', '/v1/evals/{evaluation_id}/iterations'],
      ['post', '/v1/evals/{evaluation_id}/iterations/create'],
      ['put', '/v1/evals/{evaluation_id}/documents/{document_id}'],
      ['post', '/v1/processors'],
      ['put', '/v1/processors/{processor_id}'],
    ];
    for (const [method, path] of interfacePaths) expect(doc.paths[path!][method!]).toBeDefined();
    // No key for the probe; `?detail=true` takes one (queue stats): the key is optional.
    expect(doc.paths['/health'].get.security).toEqual([{}, { ApiKey: [] }, { Bearer: [] }]);
  });

  it('declares the Api-Key and bearer security schemes, required by default', async () => {
    const doc = (await api.call('GET', '/v1/openapi.json')).body;
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Api-Key' });
    expect(doc.components.securitySchemes.Bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ ApiKey: [] }, { Bearer: [] }]);
  });

  it('describes request bodies without the path parameters, and the model filter of the iterations list', async () => {
    const doc = (await api.call('GET', '/v1/openapi.json')).body;
    const resolve = (schema: { $ref?: string }) =>
      schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
    const patch = resolve(doc.paths['/v1/evals/{evaluation_id}'].patch.requestBody.content['application/json'].schema);
    expect(Object.keys(patch.properties)).toEqual(expect.arrayContaining(['name', 'project_id', 'json_schema']));
    expect(patch.properties).not.toHaveProperty('evaluation_id');
    const put = resolve(doc.paths['/v1/evals/{evaluation_id}/documents/{document_id}'].put.requestBody.content['application/json'].schema);
    expect(put.properties).toHaveProperty('annotation');
    expect(put.properties).not.toHaveProperty('document_id');
    const list = doc.paths['/v1/evals/{evaluation_id}/iterations'].get.parameters;
    expect(list).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'query', name: 'model', required: false })]));
  });

  it('needs a key like every endpoint but /health', async () => {
    expect((await api.call('GET', '/v1/openapi.json', { key: null })).status).toBe(401);
  });
});

describe('basePath', () => {
  it('serves everything under the base path and nothing outside it', async () => {
    const root = api.url.replace('/api/docevals', '');
    expect((await fetch(`${root}/v1/evals`, { headers: { 'api-key': KEY_A } })).status).toBe(404);
    expect((await fetch(`${root}/api/docevals/health`)).status).toBe(200);
    expect((await fetch(`${root}/api/docevalsx/health`)).status).toBe(404);
    const created = await api.call('POST', '/v1/evals', { body: evaluationBody() });
    expect(created.status).toBe(200);
    expect((await api.call('GET', `/v1/evals/${created.body.id}`)).body.id).toBe(created.body.id);
    expect((await api.call('PUT', '/v1/evals')).status).toBe(405);
  });
});
