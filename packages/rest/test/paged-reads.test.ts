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

describe('summary and paged reads over HTTP', () => {
  it('answers ?view=summary on iteration get and list, without per-document arrays', async () => {
    const evaluation = await evaluationOf(6);
    const iterationId = evaluation.iterations[0].id;
    const summary = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iterationId}?view=summary`);
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({
      id: iterationId,
      status: 'completed',
      progress: { total: 6, succeeded: 6, failed: 0, pending: 0 },
      metric_results: { metric_type: 'levenshtein' },
    });
    expect(summary.body).not.toHaveProperty('predictions');
    expect(summary.body.metric_results).not.toHaveProperty('item_metrics');
    expect(summary.body.metric_results.mean_similarity).toBeCloseTo(evaluation.iterations[0].metric_results.mean_similarity, 12);

    const listed = await api.call('GET', `/v1/evals/${evaluation.id}/iterations?view=summary&model=imported`);
    expect(listed.body).toEqual({ data: [summary.body] });
    const full = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iterationId}`);
    expect(full.body.predictions).toHaveLength(6);

    const bad = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iterationId}?view=tiny`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues[0].path).toBe('view');
  });

  it('answers ?view=summary on an evaluation without its documents: their count and the iteration summaries', async () => {
    const evaluation = await evaluationOf(4);
    const summary = await api.call('GET', `/v1/evals/${evaluation.id}?view=summary`);
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ id: evaluation.id, name: 'paged', document_count: 4, schema_id: evaluation.schema_id });
    expect(summary.body).not.toHaveProperty('documents');
    const iteration = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${evaluation.iterations[0].id}?view=summary`);
    expect(summary.body.iterations).toEqual([iteration.body]);
    // The whole evaluation stays the default, and view=full says so.
    expect((await api.call('GET', `/v1/evals/${evaluation.id}`)).body).toEqual(evaluation);
    expect((await api.call('GET', `/v1/evals/${evaluation.id}?view=full`)).body).toEqual(evaluation);
    const bad = await api.call('GET', `/v1/evals/${evaluation.id}?view=tiny`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues[0].path).toBe('view');
  });

  it('pages predictions with their metrics in document order, limit and after from the query', async () => {
    const evaluation = await evaluationOf(7);
    const base = `/v1/evals/${evaluation.id}/iterations/${evaluation.iterations[0].id}/predictions`;
    const ids = evaluation.documents.map((d: { id: string }) => d.id);
    const first = await api.call('GET', `${base}?limit=3`);
    expect(first.status).toBe(200);
    expect(first.body.data.map((p: { document_id: string }) => p.document_id)).toEqual(ids.slice(0, 3));
    expect(first.body.data[0]).toMatchObject({ status: 'succeeded', prediction: { n: -1 }, metrics: { id: ids[0], name: 'd0.json' } });
    expect(first.body.data[1].metrics.similarity).toBe(1);
    expect(first.body.list_metadata).toEqual({ before: null, after: ids[2] });
    const second = await api.call('GET', `${base}?limit=100&after=${first.body.list_metadata.after}`);
    expect(second.body.data.map((p: { document_id: string }) => p.document_id)).toEqual(ids.slice(3));
    expect(second.body.list_metadata).toEqual({ before: ids[3], after: null });

    expect((await api.call('GET', `${base}?limit=0`)).status).toBe(422);
    expect((await api.call('GET', `${base}?after=nobody`)).body.error.issues[0].path).toBe('after');
    expect((await api.call('GET', `/v1/evals/${evaluation.id}/iterations/eval_iter_missing/predictions`)).status).toBe(404);
  });

  it('answers document_ids=a,b (or the parameter repeated) with those documents only, in that order', async () => {
    const evaluation = await evaluationOf(7);
    const base = `/v1/evals/${evaluation.id}/iterations/${evaluation.iterations[0].id}/predictions`;
    const ids: string[] = evaluation.documents.map((d: { id: string }) => d.id);
    const all = (await api.call('GET', `${base}?limit=10`)).body.data;

    const named = await api.call('GET', `${base}?document_ids=${ids[5]},${ids[0]}`);
    expect(named.status).toBe(200);
    expect(named.body).toEqual({ data: [all[5], all[0]], list_metadata: { before: null, after: null } });
    const repeated = await api.call('GET', `${base}?document_ids=${ids[5]}&document_ids=${ids[0]}`);
    expect(repeated.body).toEqual(named.body);
    // Both forms at once, a percent-encoded comma, and an id twice (answered once).
    const mixed = await api.call('GET', `${base}?document_ids=${ids[3]}%2C${ids[6]}&document_ids=${ids[3]},${ids[1]}`);
    expect(mixed.body.data.map((p: { document_id: string }) => p.document_id)).toEqual([ids[3], ids[6], ids[1]]);

    // limit and after page through the named documents.
    const first = await api.call('GET', `${base}?document_ids=${ids[6]},${ids[2]},${ids[4]}&limit=2`);
    expect(first.body.data).toEqual([all[6], all[2]]);
    expect(first.body.list_metadata).toEqual({ before: null, after: ids[2] });
    const second = await api.call('GET', `${base}?document_ids=${ids[6]},${ids[2]},${ids[4]}&limit=2&after=${ids[2]}`);
    expect(second.body).toEqual({ data: [all[4]], list_metadata: { before: ids[4], after: null } });
  });

  it('refuses document_ids naming no document of the evaluation with a 422 at each index, whatever its length', async () => {
    const evaluation = await evaluationOf(2);
    const base = `/v1/evals/${evaluation.id}/iterations/${evaluation.iterations[0].id}/predictions`;
    const known = evaluation.documents[0].id;
    const unknown = await api.call('GET', `${base}?document_ids=${known},file_0000000000000000`);
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'document_ids.1', message: 'no document file_0000000000000000 in this evaluation' }],
    });
    expect((await api.call('GET', `${base}?document_ids=`)).body.error.issues).toEqual([{ path: 'document_ids.0', message: 'an id is required' }]);
    expect((await api.call('GET', `${base}?document_ids=${known},,${known}`)).body.error.issues[0].path).toBe('document_ids.1');

    // 600 ids of 21 characters (13 KB of query) reach the core: the first 100 named, the rest counted.
    const many = Array.from({ length: 600 }, (_, i) => `file_${i.toString(16).padStart(16, '0')}`);
    const long = await api.call('GET', `${base}?document_ids=${many.join(',')}`);
    expect(long.status).toBe(422);
    expect(long.body.error.issues).toHaveLength(101);
    expect(long.body.error.issues[99]).toEqual({ path: 'document_ids.99', message: `no document ${many[99]} in this evaluation` });
    expect(long.body.error.issues[100].message).toBe('500 more issues not listed; fix these first');
  });

  it('lists evaluations and documents as summaries, whole with expand=documents (at most 10 a page)', async () => {
    const evaluation = await evaluationOf(2);
    const documents = await api.call('GET', `/v1/evals/${evaluation.id}/documents`);
    const id = evaluation.documents[0].id;
    expect(documents.body.data[0]).toEqual({
      id,
      filename: 'd0.json',
      mime_type: 'application/json',
      size: expect.any(Number),
      mime_data: { filename: 'd0.json', url: `/v1/evals/${evaluation.id}/documents/${id}/content` },
    });
    const expanded = await api.call('GET', `/v1/evals/${evaluation.id}/documents?expand=documents`);
    expect(expanded.body.data).toEqual(evaluation.documents);
    const tooMany = await api.call('GET', `/v1/evals?expand=documents&limit=50`);
    expect(tooMany.status).toBe(422);
    const listed = await api.call('GET', '/v1/evals?limit=1');
    expect(listed.body.data[0]).toMatchObject({ id: evaluation.id, document_count: 2 });
    expect(listed.body.data[0].documents[0].mime_data.url).not.toMatch(/^data:/); // a path to the content, not the content
    expect(listed.body.data[0].iterations[0]).toHaveProperty('progress');
  });

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
