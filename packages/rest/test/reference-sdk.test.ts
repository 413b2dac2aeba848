import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationBody, INVOICE_TEXT, INVOICE_URL, processorBody } from './support/fixtures.js';
import { KEY_A, KEY_B, startRestServer, storedState, type RestServer } from './support/rest-server.js';

// The calls of the reference service's public SDK that docevals lacked (issue 15, part 3), with the SDK's exact
// request shapes: iterations by id alone (GET, PUT with a whole Iteration as body, DELETE), compute_distances, a
// multipart submit, and `success` beside `deleted`.

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({ limits: { maxBodyBytes: 64 * 1024 } });
});
afterAll(() => api.close());

/** An evaluation whose one annotation differs from what `local-rules` reads ("INV-7" vs "INV-1"), and an iteration. */
async function evaluationWithIteration() {
  const documents = [{ mime_data: { filename: 'invoice-1.txt', url: INVOICE_URL }, annotation: { invoice_number: 'INV-7', total: 42 } }];
  const evaluation = (await api.call('POST', '/v1/evals', { body: evaluationBody({ documents }) })).body;
  const iteration = (await api.call('POST', `/v1/evals/${evaluation.id}/iterations/create`, { body: { inference_settings: { model: 'local-rules' } } })).body;
  return { evaluation, iteration };
}

describe('/v1/evals/iterations/{iteration_id}', () => {
  it('GET answers what the nested path answers; another organization gets a 404, as for an unknown id', async () => {
    const { evaluation, iteration } = await evaluationWithIteration();
    const byId = await api.call('GET', `/v1/evals/iterations/${iteration.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual((await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iteration.id}`)).body);
    const other = await api.call('GET', `/v1/evals/iterations/${iteration.id}`, { key: KEY_B });
    expect(other.status).toBe(404);
    const unknown = await api.call('GET', '/v1/evals/iterations/eval_iter_nope');
    expect(unknown.status).toBe(404);
    expect(other.body.error.message).toBe(unknown.body.error.message.replace('eval_iter_nope', iteration.id));
    expect((await api.call('GET', `/v1/evals/iterations/${iteration.id}`, { key: null })).status).toBe(401);
  });

  it("PUT with the SDK's body (a whole Iteration) changes the settings over the iteration's own and re-runs every document", async () => {
    const { evaluation, iteration } = await evaluationWithIteration();
    // The reference SDK's update: Iteration(id, json_schema, inference_settings, predictions=[]) without its None fields.
    const sdkBody = {
      id: iteration.id,
      json_schema: iteration.json_schema,
      inference_settings: { model: 'local-rules', temperature: 0.5, image_resolution_dpi: 144, browser_canvas: 'A4' },
      predictions: [],
    };
    const put = await api.call('PUT', `/v1/evals/iterations/${iteration.id}`, { body: sdkBody });
    expect(put.status).toBe(200);
    expect(put.body.id).toBe(iteration.id);
    expect(put.body.inference_settings).toEqual({ ...iteration.inference_settings, temperature: 0.5, image_resolution_dpi: 144 });
    expect(put.body.predictions).toHaveLength(1); // the sent `predictions: []` is not taken as the new predictions
    const [before, after] = [iteration.predictions[0].metadata.extraction_id, put.body.predictions[0].metadata.extraction_id];
    expect(after).not.toBe(before); // extracted again
    expect(put.body.metric_results).toEqual(iteration.metric_results);
    expect(Date.parse(put.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(iteration.updated_at));
    expect((await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iteration.id}`)).body).toEqual(put.body);

    // Nothing changes: the iteration as it is, nothing re-run.
    const again = await api.call('PUT', `/v1/evals/iterations/${iteration.id}`, { body: { inference_settings: { temperature: 0.5 } } });
    expect(again.body).toEqual(put.body);

    // A prompt-only schema change is taken (new schema_id, same schema_data_id); a structural one is a 409.
    const reworded = structuredClone(iteration.json_schema);
    reworded.properties.total.description = 'The amount due, taxes included';
    const prompt = await api.call('PUT', `/v1/evals/iterations/${iteration.id}`, { body: { json_schema: reworded } });
    expect(prompt.status).toBe(200);
    expect(prompt.body.schema_id).not.toBe(iteration.schema_id);
    expect(prompt.body.schema_data_id).toBe(iteration.schema_data_id);
    const stateBefore = await storedState(api.docevals, 'org_a');
    const otherOrg = await api.call('PUT', `/v1/evals/iterations/${iteration.id}`, { key: KEY_B, body: { inference_settings: { temperature: 1 } } });
    expect(otherOrg.status).toBe(404);
    const structural = await api.call('PUT', `/v1/evals/iterations/${iteration.id}`, {
      body: { json_schema: { type: 'object', properties: { total: { type: 'string' } } } },
    });
    expect(structural.status).toBe(409);
    expect(structural.body.error.code).toBe('conflict');
    const invalid = await api.call('PUT', `/v1/evals/iterations/${iteration.id}`, { body: { inference_settings: { temperature: 9 } } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.issues).toEqual([{ path: 'inference_settings.temperature', message: expect.any(String) }]);
    expect(await storedState(api.docevals, 'org_a')).toEqual(stateBefore);
  });

  it('DELETE answers {id, deleted, success} and removes it from its evaluation', async () => {
    const { evaluation, iteration } = await evaluationWithIteration();
    expect((await api.call('DELETE', `/v1/evals/iterations/${iteration.id}`, { key: KEY_B })).status).toBe(404);
    const deleted = await api.call('DELETE', `/v1/evals/iterations/${iteration.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: iteration.id, deleted: true, success: true });
    expect((await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iteration.id}`)).status).toBe(404);
    expect((await api.call('GET', `/v1/evals/${evaluation.id}`)).body.iterations).toEqual([]);
    expect((await api.call('DELETE', `/v1/evals/iterations/${iteration.id}`)).status).toBe(404);
  });
});

describe('/v1/evals/iterations/{iteration_id}/compute_distances/{document_id}', () => {
  it('answers 1 − similarity in the tree of similarities, the mean distance and the metric type', async () => {
    const { iteration } = await evaluationWithIteration();
    const documentId = iteration.predictions[0].document_id;
    const r = await api.call('GET', `/v1/evals/iterations/${iteration.id}/compute_distances/${documentId}`);
    expect(r.status).toBe(200);
    // "INV-7" vs "INV-1": one substitution in five characters is a similarity of 0.75 (metrics.md), a distance of 0.25.
    expect(r.body).toEqual({ distances: { invoice_number: 0.25, total: 0 }, mean_distance: 0.125, metric_type: 'levenshtein' });
    const metric = iteration.metric_results.item_metrics[0];
    expect(r.body.mean_distance).toBeCloseTo(1 - metric.similarity, 12);
    for (const [field, similarity] of Object.entries<number>(metric.similarities)) {
      expect(r.body.distances[field]).toBeCloseTo(1 - similarity, 12);
    }
  });

  it('keeps the nesting of similarities: objects, and lists keyed by index', async () => {
    const schema = {
      type: 'object',
      properties: { vendor: { type: 'object', properties: { name: { type: 'string' } } }, lines: { type: 'array', items: { type: 'string' } } },
    };
    const evaluation = (await api.call('POST', '/v1/evals', {
      body: {
        name: 'Nested',
        json_schema: schema,
        documents: [{ mime_data: { filename: 'n.txt', url: INVOICE_URL }, annotation: { vendor: { name: 'ACME' }, lines: ['a', 'b'] } }],
        iterations: [{ inference_settings: { model: 'local-rules' }, predictions: [{ prediction: { vendor: { name: 'ACMF' }, lines: ['a', 'c'] } }] }],
      },
    })).body;
    const iteration = evaluation.iterations[0];
    const similarities = iteration.metric_results.item_metrics[0].similarities;
    const r = await api.call('GET', `/v1/evals/iterations/${iteration.id}/compute_distances/${evaluation.documents[0].id}`);
    expect(r.status).toBe(200);
    expect(r.body.distances.vendor.name).toBeCloseTo(1 - similarities.vendor.name, 12);
    expect(r.body.distances.vendor.name).toBeCloseTo(0.25, 12);
    // Lists are keyed by index in `similarities` (metrics.md); distances keep the same keys.
    expect(similarities.lines).toEqual({ 0: 1, 1: 0 });
    expect(r.body.distances.lines).toEqual({ 0: 0, 1: 1 });
  });

  it('is a 404 for an unknown document, and for a document the iteration has not run yet', async () => {
    const { evaluation, iteration } = await evaluationWithIteration();
    expect((await api.call('GET', `/v1/evals/iterations/${iteration.id}/compute_distances/file_nope`)).status).toBe(404);
    const documentId = evaluation.documents[0].id;
    const otherOrg = await api.call('GET', `/v1/evals/iterations/${iteration.id}/compute_distances/${documentId}`, { key: KEY_B });
    expect(otherOrg.status).toBe(404);
    const other = `data:text/plain;base64,${Buffer.from('Invoice number: INV-2\nTotal: 7\n').toString('base64')}`;
    const added = (await api.call('POST', `/v1/evals/${evaluation.id}/documents`, {
      body: { mime_data: { filename: 'invoice-2.txt', url: other }, annotation: { invoice_number: 'INV-2', total: 7 } },
    })).body;
    const pending = await api.call('GET', `/v1/evals/iterations/${iteration.id}/compute_distances/${added.id}`);
    expect(pending.status).toBe(404);
    expect(pending.body.error.message).toContain('only_missing');
  });
});

describe('POST /v1/processors/{processor_id}/submit as multipart/form-data', () => {
  /** The reference SDK's form: the file as the `document` part, and its optional fields. */
  function sdkForm(content: BlobPart, fields: Record<string, string> = { temperature: '0', seed: '42', store: 'false' }) {
    const form = new FormData();
    form.append('document', new Blob([content], { type: 'text/plain' }), 'invoice-1.txt');
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    return form;
  }

  it('extracts the file part as the JSON body would, and answers {prediction, metadata}', async () => {
    const processor = (await api.call('POST', '/v1/processors', { body: processorBody() })).body;
    const form = await fetch(`${api.url}/v1/processors/${processor.id}/submit`, {
      method: 'POST',
      headers: { 'api-key': KEY_A },
      body: sdkForm(INVOICE_TEXT),
    });
    expect(form.status).toBe(200);
    expect(form.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await form.json();
    expect(Object.keys(body).sort()).toEqual(['api_cost', 'choices', 'created', 'extraction_id', 'id', 'likelihoods', 'metadata', 'model', 'object', 'prediction', 'usage']);
    expect(body.choices[0].message.parsed).toEqual(body.prediction);
    expect(body.prediction).toEqual({ invoice_number: 'INV-1', total: 42 });
    const json = await api.call('POST', `/v1/processors/${processor.id}/submit`, {
      body: { document: { filename: 'invoice-1.txt', url: INVOICE_URL } },
    });
    expect(json.body.prediction).toEqual(body.prediction);
    expect(body.metadata.api_cost).toEqual(json.body.metadata.api_cost);
  });

  it('has the JSON size limit, and refuses a form without a document part or one that is not multipart', async () => {
    const processor = (await api.call('POST', '/v1/processors', { body: processorBody() })).body;
    const url = `${api.url}/v1/processors/${processor.id}/submit`;
    const big = await fetch(url, { method: 'POST', headers: { 'api-key': KEY_A }, body: sdkForm('x'.repeat(70 * 1024)) });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('payload_too_large');

    const noDocument = new FormData();
    noDocument.append('temperature', '0');
    const missing = await fetch(url, { method: 'POST', headers: { 'api-key': KEY_A }, body: noDocument });
    expect(missing.status).toBe(422);
    expect((await missing.json()).error.issues).toEqual([{ path: 'document', message: 'a file part named "document" is required' }]);

    const asText = new FormData();
    asText.append('document', 'not a file');
    expect((await fetch(url, { method: 'POST', headers: { 'api-key': KEY_A }, body: asText })).status).toBe(422);

    const broken = await fetch(url, {
      method: 'POST',
      headers: { 'api-key': KEY_A, 'content-type': 'multipart/form-data; boundary=nope' },
      body: '--other\r\nContent-Disposition: form-data; name="document"\r\n\r\nx\r\n--other--\r\n',
    });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.code).toBe('bad_request');

    // Elsewhere a form is still a 415: only submit takes one.
    const elsewhere = await fetch(`${api.url}/v1/processors`, { method: 'POST', headers: { 'api-key': KEY_A }, body: sdkForm('x') });
    expect(elsewhere.status).toBe(415);
  });
});
