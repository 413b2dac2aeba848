import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { apiKeyAuthenticator, createDocevals } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';
import { createRestHandler } from '@docevals/rest';
import { stringifyJson, toNodeHandler } from '@docevals/rest/node';
import express from 'express';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deepJson, INVOICE_SCHEMA } from './support/fixtures.js';

const KEY = 'node-key';
const globals = { Request: globalThis.Request, Response: globalThis.Response, Headers: globalThis.Headers };
const restHandler = (basePath = '/mounted') =>
  createRestHandler({
    docevals: createDocevals({ storage: memoryStorage() }),
    authenticate: apiKeyAuthenticator({ keys: { [KEY]: 'org_node' } }),
    basePath,
  });
const processor = { name: 'P', model: 'local-rules', json_schema: INVOICE_SCHEMA };

describe('stringifyJson', () => {
  it('writes what JSON.stringify writes', () => {
    const samples = [
      { a: [1, 'x', null, true, { b: {} }], 'k"ey': 'va\nl\u2028', e: [], n: -0.5e-7 },
      [undefined, () => 1, Symbol('s'), Number.NaN, Infinity],
      { skipped: undefined, f: () => 1, date: new Date(0), nested: { toJSON: () => ['t'] } },
      'plain',
      42,
      null,
      [],
      {},
    ];
    for (const sample of samples) expect(stringifyJson(sample)).toBe(JSON.stringify(sample));
  });

  it('serializes a value nested 100,000 levels deep, which JSON.stringify cannot', () => {
    const deep = JSON.parse(deepJson(100_000));
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(stringifyJson(deep)).toBe(deepJson(100_000));
  });

  it('refuses cycles and BigInts like JSON.stringify', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => stringifyJson(cyclic)).toThrow(TypeError);
    expect(() => stringifyJson({ n: 1n })).toThrow(TypeError);
    const shared = { x: 1 };
    expect(stringifyJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});

describe('toNodeHandler', () => {
  let origin: string;
  let close: () => Promise<void>;
  const requests: string[] = [];

  beforeAll(async () => {
    const app = express();
    app.use((req, _res, next) => {
      requests.push(req.url);
      next();
    });
    app.use(express.json());
    app.use(express.text());
    app.use('/mounted', toNodeHandler(restHandler()));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());

  const post = (path: string, body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${origin}/mounted${path}`, { method: 'POST', headers: { 'api-key': KEY, ...headers }, body });

  it('leaves the global Request, Response and Headers alone', async () => {
    expect((await fetch(`${origin}/mounted/health`)).status).toBe(200);
    expect(globalThis.Request).toBe(globals.Request);
    expect(globalThis.Response).toBe(globals.Response);
    expect(globalThis.Headers).toBe(globals.Headers);
  });

  it('routes on the full URL under app.use(path), and leaves req.url as Express set it', async () => {
    const r = await post('/v1/processors', JSON.stringify(processor));
    expect(r.status).toBe(200);
    expect(requests.at(-1)).toBe('/mounted/v1/processors');
  });

  it('uses the body express.json() parsed, re-serialized, even 100,000 levels deep', async () => {
    const deep = await post('/v1/processors', `{"name":"d","model":"local-rules","json_schema":${deepJson(1_000)}}`);
    expect(deep.status).toBe(422);
    expect((await deep.json()).error.issues[0].message).toMatch(/deeper than 64/);
  });

  it('uses a body express.text() read as a string, so a text body is still a 415', async () => {
    const r = await post('/v1/processors', JSON.stringify(processor), { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
  });

  it('drops the Content-Encoding of a body express.json() already inflated', async () => {
    const r = await post('/v1/processors', gzipSync(JSON.stringify(processor)), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(r.status).toBe(200);
  });
});

describe('toNodeHandler under Fastify, with the body Fastify parsed attached to request.raw', () => {
  it('serves the parsed body', async () => {
    const app = Fastify();
    const nodeHandler = toNodeHandler(restHandler('/f'));
    app.all('/f/*', (request, reply) => {
      reply.hijack();
      nodeHandler(Object.assign(request.raw, { body: request.body }), reply.raw);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const headers = { 'api-key': KEY, 'content-type': 'application/json' };
      const created = await fetch(`${origin}/f/v1/processors`, { method: 'POST', headers, body: JSON.stringify(processor) });
      expect(created.status).toBe(200);
      const id = (await created.json()).id;
      const got = await fetch(`${origin}/f/v1/processors/${id}`, { headers });
      expect((await got.json()).name).toBe('P');
      const deleted = await fetch(`${origin}/f/v1/processors/${id}`, { method: 'DELETE', headers: { 'api-key': KEY } });
      expect(await deleted.json()).toEqual({ id, deleted: true, success: true });
    } finally {
      await app.close();
    }
  });
});
