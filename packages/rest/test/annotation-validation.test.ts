import { localRulesExtractor } from '@docevals/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationBody, INVOICE_URL } from './support/fixtures.js';
import { ORG_A, startRestServer, storedState, type RestServer } from './support/rest-server.js';

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({ docevals: { extractors: [localRulesExtractor()] } });
});
afterAll(() => api.close());

describe('annotations checked against the schema over REST', () => {
  it('POST /v1/evals: 422 naming documents.0.annotation.total; "validate": false is accepted', async () => {
    const before = await storedState(api.docevals, ORG_A);
    const bad = evaluationBody({ documents: [{ mime_data: { filename: 'i.txt', url: INVOICE_URL }, annotation: { total: 'abc' } }] });
    const refused = await api.call('POST', '/v1/evals', { body: bad });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('validation_error');
    expect(refused.body.error.issues).toEqual([{ path: 'documents.0.annotation.total', message: 'must be number' }]);
    expect(await storedState(api.docevals, ORG_A)).toEqual(before);

    const forced = await api.call('POST', '/v1/evals', { body: { ...bad, validate: false } });
    expect(forced.status).toBe(200);
    expect(forced.body.documents[0].annotation).toEqual({ total: 'abc' });
    expect(forced.body).not.toHaveProperty('validate');

    const put = await api.call('PUT', `/v1/evals/${forced.body.id}/documents/${forced.body.documents[0].id}`, {
      body: { annotation: { total: 'still not a number' } },
    });
    expect(put.status).toBe(422);
    expect(put.body.error.issues).toEqual([{ path: 'annotation.total', message: 'must be number' }]);
  });
});
