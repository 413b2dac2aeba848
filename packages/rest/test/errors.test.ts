import { ExtractionFailure, localRulesExtractor, type Docevals } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deepJson, evaluationBody, processorBody } from './support/fixtures.js';
import { faultyStorage } from '../../../test-support/faulty-storage.js';
import { streamBody } from './support/raw-request.js';
import { KEY_A, ORG_A, startRestServer, storedState, type RestServer } from './support/rest-server.js';
import { requestsFor, seed, type Seeded } from './support/seed.js';

const MiB = 1024 * 1024;
const faults = faultyStorage(memoryStorage());
let api: RestServer;
let ids: Seeded;
let before: Awaited<ReturnType<typeof storedState>>;

beforeAll(async () => {
  api = await startRestServer({
    docevals: {
      storage: faults,
      extractors: [
        localRulesExtractor(),
        {
          name: 'always-down',
          models: ['down-model'],
          extract: async () => {
            throw new ExtractionFailure('provider answered 400: model is down', { retryable: false, status: 400 });
          },
        },
      ],
      extraction: { retries: 0 },
    },
  });
  ids = await seed(api);
});
afterAll(() => api.close());
beforeEach(async () => {
  faults.fault = 'none';
  before = await storedState(api.docevals, ORG_A);
});
afterEach(async () => {
  faults.fault = 'none';
});

/** The error body of docs/spec/service.md, exactly: `{error: {code, message, issues?}}` and nothing else. */
function expectError(body: any, code: string) {
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(body.error)) expect(['code', 'message', 'issues']).toContain(key);
}

async function expectUnchanged(docevals: Docevals = api.docevals) {
  expect(await storedState(docevals, ORG_A)).toEqual(before);
}

describe('400 bad_request', () => {
  it.each([
    ['a truncated object', '{"name": "x", "json_schema": '],
    ['a trailing comma', '{"name": "x",}'],
    ['single quotes', "{'name': 'x'}"],
    ['not JSON at all', 'name=x'],
  ])('refuses %s', async (_, raw) => {
    const r = await api.call('POST', '/v1/evals', { raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expectError(r.body, 'bad_request');
    await expectUnchanged();
  });

  it('refuses bytes that are not UTF-8', async () => {
    const raw = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const r = await api.call('PATCH', `/v1/evals/${ids.evaluationId}`, { raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expectError(r.body, 'bad_request');
    await expectUnchanged();
  });
});

describe('401 unauthorized', () => {
  const NO_KEY = {
    message: 'No API key was sent: send it as "Api-Key: <key>" or "Authorization: Bearer <key>".',
    challenge: 'Bearer realm="docevals"',
  };
  const BAD_KEY = {
    message: 'The API key sent is not valid: check it (send it as "Api-Key: <key>" or "Authorization: Bearer <key>").',
    challenge: 'Bearer realm="docevals", error="invalid_token", error_description="The API key sent is not valid"',
  };

  it('refuses every endpoint without a key, with an unknown key, or with another scheme', async () => {
    const attempts: Array<[Record<string, string>, typeof NO_KEY]> = [
      [{}, NO_KEY],
      [{ 'api-key': 'key_org_a_012345678' }, BAD_KEY],
      [{ 'api-key': `${KEY_A}x` }, BAD_KEY],
      [{ authorization: `Basic ${Buffer.from(`${KEY_A}:`).toString('base64')}` }, NO_KEY], // not a scheme we read
      [{ authorization: 'Bearer nope' }, BAD_KEY],
      [{ 'api-key': '   ' }, NO_KEY],
    ];
    for (const { method, path, body } of requestsFor(ids)) {
      for (const [headers, expected] of attempts) {
        const r = await api.call(method, path, { key: null, headers, body });
        const what = `${method} ${path} ${JSON.stringify(headers)}`;
        expect(r.status, what).toBe(401);
        expectError(r.body, 'unauthorized');
        expect(r.body.error.message, what).toBe(expected.message);
        expect(r.headers.get('www-authenticate'), what).toBe(expected.challenge);
      }
    }
    await expectUnchanged();
  });

  it('refuses unknown paths too without a key: nothing is revealed before authentication', async () => {
    const r = await api.call('GET', '/v1/secret-admin', { key: null });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(NO_KEY.challenge);
  });
});

describe('404 not_found', () => {
  it.each([
    ['GET', '/v1/nope'],
    ['GET', '/v2/evals'],
    ['GET', '/v1/evals/x/y/z/w'],
    ['POST', '/v1/evals/'],
    ['GET', '/'],
    ['GET', '/v1/evals/x/iterations/y/process/more'],
  ])('answers %s %s with 404', async (method, path) => {
    const r = await api.call(method, path, method === 'POST' ? { body: {} } : {});
    expect(r.status).toBe(404);
    expectError(r.body, 'not_found');
    await expectUnchanged();
  });

  it('answers an unknown id with 404', async () => {
    for (const path of ['/v1/evals/eval_missing', `/v1/evals/${ids.evaluationId}/documents/file_missing`, '/v1/processors/proc_missing']) {
      const r = await api.call('GET', path);
      expect(r.status).toBe(404);
      expectError(r.body, 'not_found');
    }
    const r = await api.call('PUT', '/v1/processors/proc_missing', { body: { temperature: 1 } });
    expect(r.status).toBe(404);
    await expectUnchanged();
  });
});

describe('405 method_not_allowed', () => {
  it.each([
    ['PUT', '/v1/evals', 'POST, GET, HEAD'],
    ['DELETE', '/v1/processors', 'POST, GET, HEAD'],
    ['PATCH', '/v1/processors/proc_x', 'GET, HEAD, PUT, DELETE'],
    ['POST', '/v1/evals/eval_x', 'GET, HEAD, PATCH, DELETE'],
    ['GET', '/v1/evals/eval_x/iterations/eval_iter_x/process', 'POST'],
    ['PUT', '/v1/evals/eval_x/iterations', 'GET, HEAD'],
    ['POST', '/v1/openapi.json', 'GET, HEAD'],
    ['POST', '/health', 'GET, HEAD'],
    ['OPTIONS', '/v1/evals', 'POST, GET, HEAD'],
    // "create" may also be an iteration id: both templates match, and Allow lists both.
    ['PATCH', '/v1/evals/eval_x/iterations/create', 'POST, GET, HEAD, DELETE'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const withBody = !['GET', 'HEAD', 'OPTIONS'].includes(method);
    const r = await api.call(method, path, { body: withBody ? { name: 'x' } : undefined });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe(allow);
    expectError(r.body, 'method_not_allowed');
    await expectUnchanged();
  });
});

describe('409 conflict', () => {
  it('refuses an id already taken', async () => {
    const r = await api.call('POST', '/v1/evals', { body: evaluationBody({ id: ids.evaluationId }) });
    expect(r.status).toBe(409);
    expectError(r.body, 'conflict');
    await expectUnchanged();
  });

  it('refuses a json_schema whose structure changed once iterations exist', async () => {
    const r = await api.call('PATCH', `/v1/evals/${ids.evaluationId}`, {
      body: { json_schema: { type: 'object', properties: { other: { type: 'string' } } } },
    });
    expect(r.status).toBe(409);
    expectError(r.body, 'conflict');
    await expectUnchanged();
  });
});

describe('413 payload_too_large', () => {
  let small: RestServer;
  beforeAll(async () => {
    small = await startRestServer({ limits: { maxBodyBytes: 64 * 1024 } });
  });
  afterAll(() => small.close());

  it('refuses a declared Content-Length over the limit before reading anything', async () => {
    const r = await streamBody(`${small.url}/v1/evals`, {
      totalBytes: 200 * 1024,
      contentLength: 200 * 1024,
      headers: { 'api-key': KEY_A },
    });
    expect(r.status).toBe(413);
    expectError(r.body, 'payload_too_large');
  });

  it('refuses a body one byte over the limit', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(64 * 1024 - 10), json_schema: {} });
    const r = await small.call('POST', '/v1/evals', { raw: body, headers: { 'content-type': 'application/json' } });
    expect(body.length).toBeGreaterThan(64 * 1024);
    expect(r.status).toBe(413);
    expectError(r.body, 'payload_too_large');
    expect((await storedState(small.docevals, ORG_A)).evals).toEqual([]);
  });

  it('accepts a body exactly at the limit', async () => {
    const filler = 64 * 1024 - JSON.stringify({ name: 'x', json_schema: {}, p: '' }).length;
    const body = JSON.stringify({ name: 'x', json_schema: {}, p: ' '.repeat(filler) });
    expect(body.length).toBe(64 * 1024);
    const r = await small.call('POST', '/v1/evals', { raw: body, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    await small.call('DELETE', `/v1/evals/${r.body.id}`);
  });

  it('stops a streamed body without Content-Length at the default 32 MiB, long before its 1 GiB end', async () => {
    const r = await streamBody(`${api.url}/v1/evals`, { totalBytes: 1024 * MiB, headers: { 'api-key': KEY_A } });
    expect(r.status).toBe(413);
    expectError(r.body, 'payload_too_large');
    expect(r.bytesSent).toBeGreaterThan(32 * MiB);
    expect(r.bytesSent).toBeLessThan(160 * MiB);
    await expectUnchanged();
    // The server is still there for the next caller.
    expect((await api.call('GET', '/v1/evals')).status).toBe(200);
  });
});

describe('415 unsupported_media_type', () => {
  it.each([
    ['text/plain', JSON.stringify({ name: 'x' })],
    ['application/x-www-form-urlencoded', 'name=x'],
    ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
    ['application/json; charset=iso-8859-1', JSON.stringify({ name: 'x' })],
    ['application/jsonx', JSON.stringify({ name: 'x' })],
  ])('refuses Content-Type %s', async (contentType, raw) => {
    const r = await api.call('PATCH', `/v1/evals/${ids.evaluationId}`, { raw, headers: { 'content-type': contentType } });
    expect(r.status).toBe(415);
    expectError(r.body, 'unsupported_media_type');
    await expectUnchanged();
  });

  it('refuses a body without a Content-Type', async () => {
    const r = await streamBody(`${api.url}/v1/evals/${ids.evaluationId}`, {
      method: 'PATCH',
      totalBytes: 100,
      contentType: null,
      headers: { 'api-key': KEY_A },
    });
    expect(r.status).toBe(415);
    expectError(r.body, 'unsupported_media_type');
    await expectUnchanged();
  });

  it('refuses a compressed body', async () => {
    const r = await api.call('PUT', `/v1/processors/${ids.processorId}`, {
      raw: JSON.stringify({ temperature: 1 }),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(r.status).toBe(415);
    await expectUnchanged();
  });

  it('accepts application/json with a UTF-8 charset parameter, in any case', async () => {
    const r = await api.call('PUT', `/v1/processors/${ids.processorId}`, {
      raw: JSON.stringify({ temperature: 0 }),
      headers: { 'content-type': 'Application/JSON; Charset="UTF-8"' },
    });
    expect(r.status).toBe(200);
  });
});

describe('422 validation_error', () => {
  it('lists every wrong type with its path', async () => {
    const r = await api.call('POST', '/v1/evals', {
      body: {
        name: 5,
        json_schema: 'not an object',
        documents: [{ mime_data: { filename: 3, url: 'data:text/plain;base64,eA==' } }],
        default_inference_settings: { temperature: 'hot', n_consensus: 0 },
      },
    });
    expect(r.status).toBe(422);
    expectError(r.body, 'validation_error');
    const paths = r.body.error.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'name',
        'json_schema',
        'documents.0.mime_data.filename',
        'default_inference_settings.temperature',
        'default_inference_settings.n_consensus',
      ]),
    );
    for (const issue of r.body.error.issues) expect(Object.keys(issue).sort()).toEqual(['message', 'path']);
    await expectUnchanged();
  });

  it('refuses a body that is JSON but not an object', async () => {
    for (const raw of ['[1,2]', '"name"', '42', 'null', 'true']) {
      const r = await api.call('PATCH', `/v1/evals/${ids.evaluationId}`, { raw, headers: { 'content-type': 'application/json' } });
      expect(r.status, raw).toBe(422);
      expectError(r.body, 'validation_error');
      expect(r.body.error.issues).toEqual([{ path: '', message: expect.any(String) }]);
    }
    await expectUnchanged();
  });

  it('refuses JSON nested 100,000 levels deep, and keeps serving', async () => {
    const deep = deepJson(100_000);
    const requests = [
      ['PUT', `/v1/evals/${ids.evaluationId}/documents/${ids.documentId}`, `{"annotation":${deep}}`],
      ['POST', '/v1/evals', `{"name":"deep","json_schema":${deep}}`],
      ['PUT', `/v1/processors/${ids.processorId}`, `{"json_schema":${deep}}`],
      ['POST', '/v1/processors', JSON.stringify(processorBody()).replace(/}$/, `,"json_schema":${deep}}`)],
    ] as const;
    for (const [method, path, raw] of requests) {
      const r = await api.call(method, path, { raw, headers: { 'content-type': 'application/json' } });
      expect(r.status, `${method} ${path}`).toBe(422);
      expectError(r.body, 'validation_error');
      expect(r.body.error.issues[0].message).toMatch(/deeper than 64/);
    }
    await expectUnchanged();
    expect((await api.call('GET', `/v1/evals/${ids.evaluationId}`)).status).toBe(200);
  });

  it('refuses a model no extractor serves', async () => {
    const r = await api.call('POST', `/v1/evals/${ids.evaluationId}/iterations/create`, {
      body: { inference_settings: { model: 'no-such-model' } },
    });
    expect(r.status).toBe(422);
    expectError(r.body, 'validation_error');
    await expectUnchanged();
  });
});

describe('502 extractor_error', () => {
  it('answers a submit whose extraction failed with 502, without provider internals beyond the message', async () => {
    const processor = await api.call('POST', '/v1/processors', { body: processorBody({ model: 'down-model', name: 'Down' }) });
    expect(processor.status).toBe(200);
    before = await storedState(api.docevals, ORG_A);
    const r = await api.call('POST', `/v1/processors/${processor.body.id}/submit`, {
      body: { document: { filename: 'a.txt', url: 'data:text/plain;base64,VG90YWw6IDQy' } },
    });
    expect(r.status).toBe(502);
    expectError(r.body, 'extractor_error');
    await expectUnchanged();
    await api.call('DELETE', `/v1/processors/${processor.body.id}`);
  });
});

describe('503 storage_error and 500 internal_error', () => {
  it('answers 503 while the store is unreachable', async () => {
    faults.fault = 'unreachable';
    const r = await api.call('GET', `/v1/evals/${ids.evaluationId}`);
    expect(r.status).toBe(503);
    expectError(r.body, 'storage_error');
    faults.fault = 'none';
    await expectUnchanged();
  });

  it('answers 500 for an unexpected failure, with no internals or stack in the body', async () => {
    const logged = api.unexpected.length;
    faults.fault = 'bug';
    const r = await api.call('PATCH', `/v1/evals/${ids.evaluationId}`, { body: { name: 'x' } });
    faults.fault = 'none';
    expect(r.status).toBe(500);
    expectError(r.body, 'internal_error');
    const text = JSON.stringify(r.body);
    expect(text).not.toMatch(/SECRET|\/srv\/app|at .*\.ts:\d+/);
    expect(api.unexpected.length).toBeGreaterThan(logged);
    await expectUnchanged();
  });
});
