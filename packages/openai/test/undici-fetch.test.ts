import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_INFERENCE_SETTINGS, createExtractionRunner, type JsonObject } from '@docevals/core';
import { openaiExtractor, undiciFetch } from '@docevals/openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';

type Route = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const routes = new Map<string, Route>();
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = routes.get(req.url!.split('?')[0]!);
      if (route) route(req, Buffer.concat(chunks).toString('utf8'), res);
      else res.writeHead(404).end('no route');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const echo: Route = (req, body, res) => {
  res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req_1', 'set-cookie': ['a=1', 'b=2'] });
  res.end(JSON.stringify({ method: req.method, headers: req.headers, body }));
};
routes.set('/echo', echo);
routes.set('/moved', (_req, _body, res) => res.writeHead(307, { location: '/echo' }).end());
routes.set('/empty', (_req, _body, res) => res.writeHead(204).end());
routes.set('/slow', (_req, _body, res) => void setTimeout(() => res.end('late'), 2_000).unref());
routes.set('/events', (_req, _body, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('data: one\n\n');
  setTimeout(() => res.end('data: two\n\n'), 20);
});

const fetch = undiciFetch();

describe('undiciFetch', () => {
  it('sends the method, headers and body, and answers a standard Response with status, headers and url', async () => {
    const headers = new Headers({ 'Content-Type': 'application/json', Authorization: 'Bearer k' });
    const response = await fetch(`${base}/echo`, { method: 'post', headers, body: '{"a":1}' });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${base}/echo`);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const echoed = await response.json();
    expect(echoed).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', authorization: 'Bearer k' } });
  });

  it('takes a URL, plain or array headers, bytes and form parameters like fetch', async () => {
    const bytes = await (await fetch(new URL(`${base}/echo`), { method: 'PUT', headers: [['X-A', '1']], body: new TextEncoder().encode('é') })).json();
    expect(bytes).toMatchObject({ method: 'PUT', body: 'é', headers: { 'x-a': '1' } });
    const form = await (await fetch(`${base}/echo`, { method: 'POST', body: new URLSearchParams({ q: 'a b' }) })).json();
    expect(form).toMatchObject({ body: 'q=a+b', headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' } });
    const text = await (await fetch(`${base}/echo`, { method: 'POST', headers: { 'X-B': '2' }, body: 'hi' })).json();
    expect(text).toMatchObject({ headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-b': '2' } });
  });

  it('follows a redirect through fetch, and leaves it alone with redirect manual', async () => {
    const followed = await fetch(`${base}/moved`, { method: 'POST', body: 'again' });
    expect(followed.status).toBe(201);
    expect(await followed.json()).toMatchObject({ method: 'POST', body: 'again' });
    const manual = await fetch(`${base}/moved`, { redirect: 'manual' });
    expect(manual.status).toBe(307);
    expect(manual.headers.get('location')).toBe('/echo');
  });

  it('answers a 204 with no body', async () => {
    const response = await fetch(`${base}/empty`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('streams an event stream as it comes', async () => {
    const response = await fetch(`${base}/events`);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe('data: two\n\n');
  });

  it("rejects with the signal's reason when aborted, an AbortError by default", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const error = await fetch(`${base}/slow`, { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    const reason = new Error('stop now');
    await expect(fetch(`${base}/slow`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('rejects a refused connection with a TypeError like fetch', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error & { cause: Error }).cause).toBeInstanceOf(Error);
  });

  it('passes a Request object to fetch', async () => {
    const response = await fetch(new Request(`${base}/echo`, { method: 'POST', body: 'req' }));
    expect(await response.json()).toMatchObject({ body: 'req' });
  });

  it('serves the OpenAI SDK: a completion with its request id, and an error status as an APIError', async () => {
    const fake = await new FakeOpenAIServer().start();
    try {
      fake.handle = (_, i) =>
        i === 0
          ? { body: completion({ a: 1 }), headers: { 'x-request-id': 'req_sdk' } }
          : { status: 422, body: { error: { message: 'bad field', type: 'invalid_request_error' } } };
      const client = new OpenAI({ apiKey: 'k', baseURL: fake.baseURL, maxRetries: 0, fetch });
      const answer = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
      expect(answer.choices[0]!.message.content).toBe('{"a":1}');
      expect(answer._request_id).toBe('req_sdk');
      expect(fake.requests[0]!.headers.authorization).toBe('Bearer k');
      const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
      expect((error as Error).message).toContain('bad field');
    } finally {
      await fake.stop();
    }
  });
});

describe("the extractor's fetch option", () => {
  const schema: JsonObject = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false };
  const settings = { ...DEFAULT_INFERENCE_SETTINGS, model: 'gpt-4o-mini', modality: 'text' as const };
  const doc = { id: 'f', filename: 'f.txt', mime_type: 'text/plain', bytes: new TextEncoder().encode('n = 3') };

  it('sends every request through the fetch given', async () => {
    const fake = await new FakeOpenAIServer().start();
    try {
      fake.handle = () => ({ body: completion({ n: 3 }) });
      const seen: string[] = [];
      const counting: typeof globalThis.fetch = (input, init) => {
        seen.push(input instanceof Request ? input.url : input.toString());
        return globalThis.fetch(input, init);
      };
      const runner = createExtractionRunner({ extractors: [openaiExtractor({ apiKey: 'k', baseURL: fake.baseURL, fetch: counting })] });
      const [result] = await runner.extractAll([doc], schema, settings);
      expect(result!.prediction).toEqual({ n: 3 });
      expect(seen).toEqual([`${fake.baseURL}/chat/completions`]);
    } finally {
      await fake.stop();
    }
  });
});
