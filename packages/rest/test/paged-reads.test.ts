import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_A, startRestServer, type RestServer } from './support/rest-server.js';

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer();
});
afterAll(() => api.close());

const dataUrl = (text: string) => `data:application/json;base64,${Buffer.from(text).toString('base64')}`;
const schema = { type: 'object', properties: { n: { type: 'number' }, text: { type: 'string' } } };

/** An evaluation of `n` documents with one imported iteration whose predictions are right except every third. */
async function evaluationOf(n: number, pad = 0) {
  const documents = Array.from({ length: n }, (_, i) => ({
    mime_data: { filename: `d${i}.json`, url: dataUrl(JSON.stringify({ n: i, pad: 'x'.repeat(pad) })) },
    annotation: { n: i, text: `document ${i} ${'y'.repeat(pad)}` },
  }));
  const predictions = documents.map((d, i) => ({ prediction: i % 3 === 0 ? { n: -1 } : d.annotation }));
  const created = await api.call('POST', '/v1/evals', {
    body: { name: 'paged', json_schema: schema, documents, iterations: [{ inference_settings: { model: 'imported' }, predictions }] },
  });
  expect(created.status).toBe(200);
  return created.body;
}

// The reads themselves are shared cases (test-support/transport-conformance/); here, how REST spells them in a URL
// and streams them.
describe('summary and paged reads over HTTP', () => {
  it('reads view=summary and view=full from the query of the iteration and evaluation routes, 422 for another view', async () => {
    const evaluation = await evaluationOf(4);
    const iteration = `/v1/evals/${evaluation.id}/iterations/${evaluation.iterations[0].id}`;
    const summary = await api.call('GET', `${iteration}?view=summary`);
    expect(summary.status).toBe(200);
    expect(summary.body).not.toHaveProperty('predictions');
    expect((await api.call('GET', `/v1/evals/${evaluation.id}/iterations?view=summary&model=imported`)).body).toEqual({ data: [summary.body] });
    expect((await api.call('GET', `/v1/evals/${evaluation.id}?view=summary`)).body.iterations).toEqual([summary.body]);
    expect((await api.call('GET', `/v1/evals/${evaluation.id}?view=full`)).body).toEqual(evaluation);
    for (const path of [`${iteration}?view=tiny`, `/v1/evals/${evaluation.id}?view=tiny`]) {
      const bad = await api.call('GET', path);
      expect(bad.status).toBe(422);
      expect(bad.body.error.issues[0].path).toBe('view');
    }
  });

  it('reads document_ids comma-separated, repeated or both, percent-encoded commas and empty ids included', async () => {
    const evaluation = await evaluationOf(7);
    const base = `/v1/evals/${evaluation.id}/iterations/${evaluation.iterations[0].id}/predictions`;
    const ids: string[] = evaluation.documents.map((d: { id: string }) => d.id);
    const named = await api.call('GET', `${base}?document_ids=${ids[5]},${ids[0]}`);
    expect(named.body.data.map((p: { document_id: string }) => p.document_id)).toEqual([ids[5], ids[0]]);
    expect((await api.call('GET', `${base}?document_ids=${ids[5]}&document_ids=${ids[0]}`)).body).toEqual(named.body);
    const mixed = await api.call('GET', `${base}?document_ids=${ids[3]}%2C${ids[6]}&document_ids=${ids[3]},${ids[1]}`);
    expect(mixed.body.data.map((p: { document_id: string }) => p.document_id)).toEqual([ids[3], ids[6], ids[1]]);
    expect((await api.call('GET', `${base}?document_ids=${ids[0]},,${ids[0]}`)).body.error.issues[0].path).toBe('document_ids.1');
  });

  it('takes 600 document ids of 21 characters in one query (13 KB) to the core: the first 100 named, the rest counted', async () => {
    const evaluation = await evaluationOf(2);
    const base = `/v1/evals/${evaluation.id}/iterations/${evaluation.iterations[0].id}/predictions`;
    const many = Array.from({ length: 600 }, (_, i) => `file_${i.toString(16).padStart(16, '0')}`);
    const long = await api.call('GET', `${base}?document_ids=${many.join(',')}`);
    expect(long.status).toBe(422);
    expect(long.body.error.issues).toHaveLength(101);
    expect(long.body.error.issues[100].message).toBe('500 more issues not listed; fix these first');
  });
});

describe('large answers over HTTP', () => {
  it('streams a large answer in pieces and it parses as the whole iteration', async () => {
    // About 4 MB of predictions: more than one chunk of the JSON stream.
    const evaluation = await evaluationOf(200, 10_000);
    const response = await fetch(`${api.url}/v1/evals/${evaluation.id}/iterations/${evaluation.iterations[0].id}`, {
      headers: { 'api-key': KEY_A },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBeNull();
    let chunks = 0;
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      chunks++;
      text += decoder.decode(chunk, { stream: true });
    }
    expect(chunks).toBeGreaterThan(1);
    const iteration = JSON.parse(text);
    expect(iteration.predictions).toHaveLength(200);
    expect(iteration).toEqual(evaluation.iterations[0]);
    // A small answer keeps its Content-Length.
    const small = await fetch(`${api.url}/v1/evals/${evaluation.id}/iterations/${evaluation.iterations[0].id}?view=summary`, {
      headers: { 'api-key': KEY_A },
    });
    expect(Number(small.headers.get('content-length'))).toBe((await small.text()).length);
  });

  it('answers a list of evaluations sharing one large file without its contents (issue 13, M2)', async () => {
    // 3 MB of content, referenced by 6 evaluations: the list carries none of it.
    const big = `data:application/octet-stream;base64,${Buffer.alloc(3 * 1024 * 1024, 7).toString('base64')}`;
    const first = await api.call('POST', '/v1/evals', {
      body: { name: 'big-0', project_id: 'm2', json_schema: schema, documents: [{ mime_data: { filename: 'big.bin', url: big } }] },
    });
    expect(first.status).toBe(200);
    const fileId = first.body.documents[0].id;
    for (let i = 1; i < 6; i++) {
      const r = await api.call('POST', '/v1/evals', {
        body: { name: `big-${i}`, project_id: 'm2', json_schema: schema, documents: [{ mime_data: { filename: 'big.bin', file_id: fileId } }] },
      });
      expect(r.status).toBe(200);
    }
    const response = await fetch(`${api.url}/v1/evals?limit=20&project_id=m2`, { headers: { 'api-key': KEY_A } });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text.length).toBeLessThan(20_000);
    const listed = JSON.parse(text);
    expect(listed.data).toHaveLength(6);
    for (const evaluation of listed.data) expect(evaluation.documents).toEqual([
      {
        id: fileId,
        filename: 'big.bin',
        mime_type: 'application/octet-stream',
        size: 3 * 1024 * 1024,
        mime_data: { filename: 'big.bin', url: `/v1/evals/${evaluation.id}/documents/${fileId}/content` },
      },
    ]);
  });
});
