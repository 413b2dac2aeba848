import { request as httpRequest, createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryStorage } from '@docevals/adapters/memory';
import { apiKeyAuthenticator, createDocevals, refuse, storageError, type Authenticate } from '@docevals/core';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { describe, expect, it } from 'vitest';
import { createDocevalsContext, createDocevalsRouter, toHeaders } from '../src/index.js';

const authenticate = apiKeyAuthenticator({ keys: { key_org_a: 'org_a' } });

/** The IncomingMessage a real node server receives for a request with these headers. */
async function incomingMessage(headers: Record<string, string | string[]>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      res.end();
      server.close();
      resolve(req);
    });
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      httpRequest({ host: '127.0.0.1', port, headers }, (res) => res.resume()).on('error', reject).end();
    });
  });
}

describe('createDocevalsContext', () => {
  it('authenticates a node request (standalone, Express, Fastify) from Api-Key or Authorization: Bearer', async () => {
    const createContext = createDocevalsContext({ authenticate });
    expect(await createContext({ req: await incomingMessage({ 'Api-Key': 'key_org_a' }) })).toEqual({ organizationId: 'org_a' });
    expect(await createContext({ req: await incomingMessage({ Authorization: 'Bearer key_org_a' }) })).toEqual({
      organizationId: 'org_a',
    });
    expect(await createContext({ req: await incomingMessage({ 'Api-Key': 'key_wrong' }) })).toEqual({ organizationId: null, apiKeySent: true });
    expect(await createContext({ req: await incomingMessage({}) })).toEqual({ organizationId: null, apiKeySent: false });
  });

  it('authenticates a fetch Request (fetch adapter) with the same function', async () => {
    const createContext = createDocevalsContext({ authenticate });
    const req = new Request('http://x/trpc/evals.list', { headers: { 'api-key': 'key_org_a' } });
    expect(await createContext({ req })).toEqual({ organizationId: 'org_a' });
  });

  it('serves the router through the fetch adapter', async () => {
    const router = createDocevalsRouter({ docevals: createDocevals({ storage: memoryStorage() }) });
    const call = (headers: Record<string, string>) =>
      fetchRequestHandler({
        endpoint: '/trpc',
        router,
        createContext: createDocevalsContext({ authenticate }),
        req: new Request('http://x/trpc/evals.list', { headers }),
      });
    const ok = await call({ Authorization: 'Bearer key_org_a' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ result: { data: { data: [], list_metadata: { before: null, after: null } } } });
    const refused = await call({});
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.data.docevalsCode).toBe('unauthorized');
  });

  it('reports a failing authenticate like a failing procedure', async () => {
    const router = createDocevalsRouter({ docevals: createDocevals({ storage: memoryStorage() }) });
    const call = (authenticate: Authenticate) =>
      fetchRequestHandler({
        endpoint: '/trpc',
        router,
        createContext: createDocevalsContext({ authenticate }),
        req: new Request('http://x/trpc/evals.list', { headers: { 'Api-Key': 'k' } }),
      });
    const unreachable = await call(() => Promise.reject(storageError('keys', 'lookup', new Error('timeout'))));
    expect(unreachable.status).toBe(503);
    expect((await unreachable.json()).error.data.docevalsCode).toBe('storage_error');
    const broken = await call(() => {
      throw new Error('secret key table at /etc/keys');
    });
    expect(broken.status).toBe(500);
    const text = await broken.text();
    expect(text).not.toContain('/etc/keys');
    expect(JSON.parse(text).error.data.docevalsCode).toBe('internal_error');
  });
});

describe('toHeaders', () => {
  it('copies node headers, repeated ones included, and keeps a Headers as it is', () => {
    const headers = toHeaders({ 'api-key': 'k', 'x-many': ['a', 'b'], 'x-none': undefined });
    expect(headers.get('Api-Key')).toBe('k');
    expect(headers.get('x-many')).toBe('a, b');
    expect(headers.has('x-none')).toBe(false);
    const fetchHeaders = new Headers({ a: '1' });
    expect(toHeaders(fetchHeaders)).toBe(fetchHeaders);
  });
});

describe('authenticate(request, context) in the tRPC context', () => {
  it('receives a Request with the cookie and the node request from a node adapter', async () => {
    const contexts: unknown[] = [];
    const createContext = createDocevalsContext({
      authenticate: (request, context) => {
        contexts.push(context);
        return request.headers.get('cookie') === 'sid=s_good' && new URL(request.url).pathname === '/trpc/evals.list' ? 'org_cookie' : null;
      },
    });
    const req = await incomingMessage({ cookie: 'sid=s_good' });
    Object.assign(req, { url: '/trpc/evals.list' });
    expect(await createContext({ req })).toEqual({ organizationId: 'org_cookie' });
    expect(contexts).toEqual([{ transport: 'trpc', nodeRequest: req }]);
  });

  it("answers a refusal with the host's message", async () => {
    const router = createDocevalsRouter({ docevals: createDocevals({ storage: memoryStorage() }) });
    const response = await fetchRequestHandler({
      endpoint: '/trpc',
      router,
      createContext: createDocevalsContext({ authenticate: () => refuse('Sign in first.', { wwwAuthenticate: 'Cookie' }) }),
      req: new Request('http://x/trpc/evals.list'),
    });
    expect(response.status).toBe(401);
    const body = await response.json();
    expect(body.error.message).toBe('Sign in first.');
    expect(body.error.data.docevalsCode).toBe('unauthorized');
  });
});
