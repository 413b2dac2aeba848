import { localRulesExtractor } from '@docevals/core';
import { openaiExtractor } from '@docevals/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from './support/rest-server.js';

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({
    docevals: { extractors: [localRulesExtractor(), openaiExtractor({ apiKey: 'sk-unused', models: ['o3-mini', 'gpt-*'] })] },
  });
});
afterAll(() => api.close());

describe('GET /v1/models', () => {
  it("lists this host's models with their extractor and modalities, patterns flagged", async () => {
    const r = await api.call('GET', '/v1/models');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [
        { id: 'local-rules', extractor: 'local-rules', pattern: false, modalities: ['text'], provider: null },
        { id: 'o3-mini', extractor: 'openai', pattern: false, modalities: ['text'], provider: null },
        { id: 'gpt-*', extractor: 'openai', pattern: true, modalities: ['text', 'image', 'native', 'image+text'], provider: null },
      ],
    });
  });

  it('needs a key like every other route', async () => {
    const r = await api.call('GET', '/v1/models', { key: null });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
  });

  it('is in the OpenAPI document, its response schema naming the fields', async () => {
    const doc = (await api.call('GET', '/v1/openapi.json')).body;
    const operation = doc.paths['/v1/models'].get;
    expect(operation.operationId).toBe('listModels');
    expect(operation.tags).toEqual(['Models']);
    expect(operation.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ModelList' });
    const schema = JSON.stringify([doc.components.schemas.ModelList, doc.components.schemas.Model]);
    for (const field of ['"id"', '"extractor"', '"pattern"', '"modalities"', '"image+text"']) expect(schema).toContain(field);
  });
});
