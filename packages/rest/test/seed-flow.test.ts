import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationBody, INVOICE_ANNOTATION, INVOICE_URL, processorBody } from './support/fixtures.js';
import { ORG_A, startRestServer, type RestServer } from './support/rest-server.js';

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer();
});
afterAll(() => api.close());

describe('the seven endpoints of the interface, end to end over a socket', () => {
  it('creates, updates, runs, lists, annotates and configures, each answer shaped as docs/spec/interface.md says', async () => {
    // 4.1 Create evaluation, with a document as a data URL
    const created = await api.call('POST', '/v1/evals', { body: evaluationBody() });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
    const evaluation = created.body;
    expect(evaluation.id).toMatch(/^eval_/);
    expect(evaluation).toMatchObject({ name: 'Invoices', project_id: 'proj_1', iterations: [] });
    expect(typeof evaluation.schema_data_id).toBe('string');
    expect(typeof evaluation.schema_id).toBe('string');
    expect(evaluation.documents).toHaveLength(1);
    const document = evaluation.documents[0];
    expect(document.mime_data).toEqual({ filename: 'invoice-1.txt', url: INVOICE_URL });
    expect(document.annotation).toEqual(INVOICE_ANNOTATION);

    // 4.2 Update evaluation
    const patched = await api.call('PATCH', `/v1/evals/${evaluation.id}`, { body: { name: 'Invoices 2026' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: evaluation.id, name: 'Invoices 2026', project_id: 'proj_1' });

    // 4.4 Create iteration with the offline model
    const run = await api.call('POST', `/v1/evals/${evaluation.id}/iterations/create`, {
      body: { inference_settings: { model: 'local-rules' } },
    });
    expect(run.status).toBe(200);
    const iteration = run.body;
    expect(iteration.id).toMatch(/^eval_iter_/);
    expect(iteration.inference_settings.model).toBe('local-rules');
    expect(iteration.predictions).toHaveLength(1);
    expect(iteration.predictions[0].document_id).toBe(document.id);
    expect(iteration.predictions[0].prediction).toEqual(INVOICE_ANNOTATION);
    expect(iteration.metric_results).toMatchObject({ metric_type: 'levenshtein', mean_similarity: 1 });
    expect(iteration.schema_data_id).toBe(evaluation.schema_data_id);

    // 4.3 List iterations, filtered by model
    const listed = await api.call('GET', `/v1/evals/${evaluation.id}/iterations?model=local-rules`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((i: { id: string }) => i.id)).toEqual([iteration.id]);
    const none = await api.call('GET', `/v1/evals/${evaluation.id}/iterations?model=gpt-4o`);
    expect(none.body).toEqual({ data: [] });
    const all = await api.call('GET', `/v1/evals/${evaluation.id}/iterations`);
    expect(all.body.data).toHaveLength(1);

    // 4.5 Update a document's annotation: the iteration's metrics follow
    const annotated = await api.call('PUT', `/v1/evals/${evaluation.id}/documents/${document.id}`, {
      body: { annotation: { invoice_number: 'INV-1', total: 43 }, annotation_metadata: { extraction_id: 'manual' } },
    });
    expect(annotated.status).toBe(200);
    expect(annotated.body).toMatchObject({ id: document.id, annotation: { invoice_number: 'INV-1', total: 43 } });
    expect(annotated.body.mime_data.filename).toBe('invoice-1.txt');
    const rescored = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iteration.id}`);
    expect(rescored.body.metric_results.mean_similarity).toBeLessThan(1);

    // 4.6 Create processor
    const made = await api.call('POST', '/v1/processors', { body: processorBody() });
    expect(made.status).toBe(200);
    const processor = made.body;
    expect(processor).toMatchObject({
      object: 'processor',
      name: 'Invoice reader',
      model: 'local-rules',
      organization_id: ORG_A,
      image_resolution_dpi: 96,
      browser_canvas: 'A4',
      temperature: 0,
      reasoning_effort: 'low',
      n_consensus: 1,
    });
    expect(processor.id).toMatch(/^proc_/);
    expect(typeof processor.schema_data_id).toBe('string');

    // 4.7 Update processor: the fields it carries change, the others stay
    const updated = await api.call('PUT', `/v1/processors/${processor.id}`, { body: { temperature: 0.5, name: 'Reader 2' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: processor.id, temperature: 0.5, name: 'Reader 2', model: 'local-rules', browser_canvas: 'A4' });
  });
});

describe('the other routes of docs/spec/service.md', () => {
  it('gets, lists and deletes evaluations, documents, iterations and processors, and submits to a processor', async () => {
    const evaluation = (await api.call('POST', '/v1/evals', { body: evaluationBody({ name: 'Other routes' }) })).body;
    const e = `/v1/evals/${evaluation.id}`;

    expect((await api.call('GET', e)).body).toMatchObject({ id: evaluation.id, name: 'Other routes' });
    const page = await api.call('GET', '/v1/evals?limit=1&order=desc');
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.list_metadata).toHaveProperty('after');

    const added = await api.call('POST', `${e}/documents`, {
      body: { mime_data: { filename: 'b.txt', url: 'data:text/plain;base64,VG90YWw6IDc=' }, annotation: { total: 7 } },
    });
    expect(added.status).toBe(200);
    const documents = await api.call('GET', `${e}/documents`);
    expect(documents.body.data.map((d: { id: string }) => d.id)).toEqual([evaluation.documents[0].id, added.body.id]);
    expect((await api.call('GET', `${e}/documents/${added.body.id}`)).body.annotation).toEqual({ total: 7 });

    const iteration = (await api.call('POST', `${e}/iterations/create`, { body: { inference_settings: { model: 'local-rules' } } })).body;
    expect(iteration.predictions).toHaveLength(2);
    const reprocessed = await api.call('POST', `${e}/iterations/${iteration.id}/process`, { body: { only_missing: true } });
    expect(reprocessed.status).toBe(200);
    const withoutBody = await api.call('POST', `${e}/iterations/${iteration.id}/process`);
    expect(withoutBody.status).toBe(200);
    expect(withoutBody.body.id).toBe(iteration.id);

    expect((await api.call('DELETE', `${e}/documents/${added.body.id}`)).body).toEqual({ id: added.body.id, deleted: true, success: true });
    expect((await api.call('DELETE', `${e}/iterations/${iteration.id}`)).body).toEqual({ id: iteration.id, deleted: true, success: true });
    expect((await api.call('GET', `${e}/iterations/${iteration.id}`)).status).toBe(404);

    const processor = (await api.call('POST', '/v1/processors', { body: processorBody({ name: 'Submitter' }) })).body;
    const p = `/v1/processors/${processor.id}`;
    expect((await api.call('GET', p)).body.name).toBe('Submitter');
    const processors = await api.call('GET', '/v1/processors?name=Submitter');
    expect(processors.body.data.map((x: { id: string }) => x.id)).toEqual([processor.id]);
    const submitted = await api.call('POST', `${p}/submit`, { body: { document: { filename: 'i.txt', url: INVOICE_URL } } });
    expect(submitted.status).toBe(200);
    expect(submitted.body.prediction).toEqual(INVOICE_ANNOTATION);
    expect((await api.call('DELETE', p)).body).toEqual({ id: processor.id, deleted: true, success: true });
    expect((await api.call('GET', p)).status).toBe(404);

    expect((await api.call('DELETE', e)).body).toEqual({ id: evaluation.id, deleted: true, success: true });
    expect((await api.call('GET', e)).status).toBe(404);
  });

  it('answers GET /health without a key, and HEAD like GET without a body', async () => {
    const health = await api.call('GET', '/health', { key: null });
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    const head = await fetch(`${api.url}/v1/evals`, { method: 'HEAD', headers: { 'api-key': 'key_org_a_0123456789' } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('accepts the key as Authorization: Bearer', async () => {
    const listed = await api.call('GET', '/v1/processors', { key: null, headers: { authorization: 'Bearer key_org_a_0123456789' } });
    expect(listed.status).toBe(200);
  });
});

describe('GET /health', () => {
  it('answers the probe without a key; the detail needs one and reports the caller organization iterations (no fleet for the in-process runner)', async () => {
    const probe = await api.call('GET', '/health', { key: null });
    expect(probe.status).toBe(200);
    expect(probe.body).toEqual({ status: 'ok' });
    const refused = await api.call('GET', '/health?detail=true', { key: null });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
    const detail = await api.call('GET', '/health?detail=true');
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({ status: 'ok', jobs: { runner: 'in-process', organization: { queued: 0, running: 0, models: {} } } });
  });
});
