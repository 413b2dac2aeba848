import { localRulesExtractor } from '@docevals/core';
import { openaiExtractor } from '@docevals/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from './support/rest-server.js';

// The list and its key are shared cases (test-support/transport-conformance/); here, what REST alone has.

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({
    docevals: { extractors: [localRulesExtractor(), openaiExtractor({ apiKey: 'sk-unused', models: ['o3-mini', 'gpt-*'] })] },
  });
});
afterAll(() => api.close());

describe('GET /v1/models', () => {
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
