import { DEFAULT_INFERENCE_SETTINGS, ERROR_CODES } from '@docevals/core';
import { ENDPOINTS } from '@docevals/rest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationBody, processorBody } from './support/fixtures.js';
import { startRestServer, type RestServer } from './support/rest-server.js';

// The served document, read as a person and a client generator would: named components, descriptions, examples
// that validate against their schemas (Ajv over the document itself), real answers that validate too.

type Json = any;
let api: RestServer;
let doc: Json;
let ajv: InstanceType<typeof Ajv2020>;
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

beforeAll(async () => {
  api = await startRestServer();
  doc = (await api.call('GET', '/v1/openapi.json')).body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  ajv.addSchema(doc, 'openapi.json');
});
afterAll(() => api.close());

/** A validator for the schema at a JSON pointer of the document. */
function validatorAt(...segments: string[]) {
  const pointer = segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  return ajv.compile({ $ref: `openapi.json#/${pointer}` });
}

function operations(): Array<{ path: string; method: string; op: Json }> {
  const found = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]) found.push({ path, method, op: item[method] });
  }
  return found;
}

describe('the OpenAPI document, for people and generators', () => {
  it('names a component for every resource and shared part, and refers to them', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'Evaluation', 'EvaluationDocument', 'Iteration', 'Prediction', 'PredictionMetadata', 'MetricResults', 'ItemMetric',
      'InferenceSettings', 'InferenceSettingsInput', 'DefaultInferenceSettings', 'Processor', 'ListMetadata', 'Error',
      'ErrorCode', 'Deleted', 'SubmitResult', 'EvaluationList', 'ProcessorList', 'IterationList',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(doc.components.schemas.ErrorCode.enum).toEqual([...ERROR_CODES]);
    expect(doc.components.schemas.Error.properties.error.properties.code).toMatchObject({ $ref: '#/components/schemas/ErrorCode' });
    expect(doc.components.schemas.Evaluation.properties.iterations.items).toEqual({ $ref: '#/components/schemas/Iteration' });
    expect(doc.components.schemas.Iteration.properties.inference_settings).toMatchObject({ $ref: '#/components/schemas/InferenceSettings' });
    // Every request body and every JSON answer is a named component: a generator names Evaluation, not paths[...].
    for (const { path, method, op } of operations()) {
      const body = op.requestBody?.content['application/json']?.schema;
      if (body) expect(body.$ref, `${method} ${path} body`).toMatch(/^#\/components\/schemas\//);
      const answer = op.responses['200'].content?.['application/json']?.schema;
      if (answer && path !== '/v1/openapi.json') expect(answer.$ref, `${method} ${path} 200`).toMatch(/^#\/components\/schemas\//);
    }
  });

  it('describes every operation, parameter and property', () => {
    for (const { path, method, op } of operations()) {
      expect(op.description, `${method} ${path}`).toMatch(/\w{3}/);
      expect(op.summary, `${method} ${path}`).toMatch(/\w{3}/);
      for (const param of op.parameters ?? []) expect(param.description, `${method} ${path} ${param.name}`).toMatch(/\w{3}/);
    }
    const undescribed: string[] = [];
    const walk = (schema: Json, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) {
        if (!property.description) undescribed.push(`${where}.${name}`);
        walk(property, `${where}.${name}`);
      }
      for (const key of ['items', 'additionalProperties']) if (typeof schema[key] === 'object') walk(schema[key], `${where}[]`);
      for (const key of ['allOf', 'anyOf', 'oneOf']) for (const part of schema[key] ?? []) walk(part, where);
    };
    for (const [name, schema] of Object.entries<Json>(doc.components.schemas)) {
      expect(schema.description, name).toMatch(/\w{3}/);
      walk(schema, name);
    }
    expect(undescribed).toEqual([]);
    // The ones the issue named: the two schema ids, document_id, only_missing, the cursors.
    expect(doc.components.schemas.Evaluation.properties.schema_data_id.description).toContain('structure');
    expect(doc.components.schemas.Evaluation.properties.schema_id.description).toContain('exactly as given');
    expect(doc.components.schemas.ProcessIterationRequest.properties.only_missing.description).toContain('without a prediction');
    const list = doc.paths['/v1/evals'].get.parameters;
    expect(list.find((p: Json) => p.name === 'after').description).toContain('list_metadata.after');
    const docParam = doc.paths['/v1/evals/{evaluation_id}/documents/{document_id}'].get.parameters.find((p: Json) => p.name === 'document_id');
    expect(docParam.description).toContain('file_id');
  });

  it('declares date-times, the inference settings defaults, tags, license and contact, and no empty webhooks', () => {
    for (const name of ['Evaluation', 'Iteration', 'Processor']) {
      expect(doc.components.schemas[name].properties.updated_at).toMatchObject({ type: 'string', format: 'date-time' });
    }
    const input = doc.components.schemas.InferenceSettingsInput.properties;
    for (const [field, value] of Object.entries(DEFAULT_INFERENCE_SETTINGS)) expect(input[field].default, field).toEqual(value);
    expect(input.model.default).toBeUndefined();
    expect(doc.tags.map((t: Json) => t.name)).toEqual(['Evaluations', 'Documents', 'Iterations', 'Processors', 'Models', 'Secrets', 'Service']);
    for (const tag of doc.tags) expect(tag.description).toMatch(/\w{3}/);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(doc.info.contact.name).toMatch(/\w/);
    expect(doc).not.toHaveProperty('webhooks');
    expect(doc.info.description).toContain('405');
    expect(doc.components.responses.Unauthorized.headers).toHaveProperty('WWW-Authenticate');
  });

  it('declares HEAD wherever GET is, and the server answers it without a body', async () => {
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      if (item.get) expect(item.head, path).toBeDefined();
    }
    const head = await fetch(`${api.url}/v1/evals`, { method: 'HEAD', headers: { 'api-key': 'key_org_a_0123456789' } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('has a request and an answer example on every operation, each valid against its schema', () => {
    let checked = 0;
    for (const { path, method, op } of operations()) {
      if (method === 'head') continue;
      const json = op.requestBody?.content['application/json'];
      if (json) {
        expect(json.example, `${method} ${path} request example`).toBeDefined();
        const validate = validatorAt('paths', path, method, 'requestBody', 'content', 'application/json', 'schema');
        expect(validate(json.example) ? [] : validate.errors, `${method} ${path} request example`).toEqual([]);
        checked++;
      }
      const [type, answer] = Object.entries<Json>(op.responses['200'].content)[0]!;
      expect(answer.example, `${method} ${path} answer example`).toBeDefined();
      const validate = validatorAt('paths', path, method, 'responses', '200', 'content', type, 'schema');
      expect(validate(answer.example) ? [] : validate.errors, `${method} ${path} answer example`).toEqual([]);
      checked++;
    }
    for (const [name, response] of Object.entries<Json>(doc.components.responses)) {
      const validate = validatorAt('components', 'schemas', 'Error');
      expect(validate(response.content['application/json'].example) ? [] : validate.errors, name).toEqual([]);
    }
    expect(checked).toBeGreaterThan(ENDPOINTS.length);
  });

  it('refuses an example that breaks its schema (the check bites)', () => {
    const validate = validatorAt('components', 'schemas', 'Iteration');
    const example = doc.paths['/v1/evals/{evaluation_id}/iterations/{iteration_id}'].get.responses['200'].content['application/json'].example;
    expect(validate(example)).toBe(true);
    expect(validate({ ...example, metric_results: { ...example.metric_results, metric_type: 'cosine' } })).toBe(false);
    expect(validate({ ...example, updated_at: 'yesterday' })).toBe(false);
  });

  it("describes what the server really answers: a flow's answers validate against their operation's schema", async () => {
    const check = (path: string, method: string, body: unknown) => {
      const validate = validatorAt('paths', path, method, 'responses', '200', 'content', 'application/json', 'schema');
      expect(validate(body) ? [] : validate.errors, `${method} ${path}`).toEqual([]);
    };
    const evaluation = (await api.call('POST', '/v1/evals', { body: evaluationBody() })).body;
    check('/v1/evals', 'post', evaluation);
    const iteration = (await api.call('POST', `/v1/evals/${evaluation.id}/iterations/create`, { body: { inference_settings: { n_consensus: 2 } } })).body;
    check('/v1/evals/{evaluation_id}/iterations/create', 'post', iteration);
    check('/v1/evals/{evaluation_id}', 'get', (await api.call('GET', `/v1/evals/${evaluation.id}`)).body);
    const changed = await api.call('PUT', `/v1/evals/iterations/${iteration.id}`, { body: { inference_settings: { temperature: 0.3 } } });
    check('/v1/evals/iterations/{iteration_id}', 'put', changed.body);
    const distances = await api.call('GET', `/v1/evals/iterations/${iteration.id}/compute_distances/${evaluation.documents[0].id}`);
    check('/v1/evals/iterations/{iteration_id}/compute_distances/{document_id}', 'get', distances.body);
    check('/v1/evals', 'get', (await api.call('GET', '/v1/evals?limit=1')).body);
    check('/v1/evals/{evaluation_id}/documents', 'get', (await api.call('GET', `/v1/evals/${evaluation.id}/documents`)).body);
    const processor = (await api.call('POST', '/v1/processors', { body: processorBody() })).body;
    check('/v1/processors', 'post', processor);
    const submitted = await api.call('POST', `/v1/processors/${processor.id}/submit`, {
      body: { document: evaluation.documents[0].mime_data },
    });
    check('/v1/processors/{processor_id}/submit', 'post', submitted.body);
    check('/v1/processors/{processor_id}', 'delete', (await api.call('DELETE', `/v1/processors/${processor.id}`)).body);
  });
});
