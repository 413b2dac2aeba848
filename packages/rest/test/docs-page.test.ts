import { apiKeyAuthenticator, createDocevals } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';
import { createRestHandler } from '@docevals/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_A, startRestServer, type RestServer } from './support/rest-server.js';

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({ basePath: '/api/docevals' });
});
afterAll(() => api.close());

describe('GET /docs', () => {
  it('serves the reference without a key, referencing same-origin assets only, under a strict CSP', async () => {
    const page = await fetch(`${api.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).not.toMatch(/https?:/);
    const html = await page.text();
    const urls = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls).toEqual(['/api/docevals/docs/redoc.standalone.js', '/api/docevals/docs/init.js']);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<link|@import/);

    const origin = new URL(api.url).origin;
    for (const url of urls) {
      const asset = await fetch(new URL(url, origin));
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('content-type'), url).toBe('text/javascript; charset=utf-8');
    }
  });

  it('renders this handler\'s own OpenAPI document with the locally served Redoc bundle', async () => {
    const bundle = await (await fetch(`${api.url}/docs/redoc.standalone.js`)).text();
    expect(bundle.length).toBeGreaterThan(500_000); // the whole renderer, self-contained
    expect(bundle).toContain('Redoc');
    const init = await (await fetch(`${api.url}/docs/init.js`)).text();
    expect(init.startsWith('Redoc.init(')).toBe(true);
    const served = (await api.call('GET', '/v1/openapi.json')).body;
    const embedded = JSON.parse(init.slice('Redoc.init('.length, init.indexOf(', {"hideDownloadButton"')));
    expect(embedded).toEqual(served);
    expect(embedded.servers).toEqual([{ url: '/api/docevals', description: 'This server' }]);
  });

  it('answers HEAD, refuses other methods with 405, and needs no key where /v1/openapi.json does', async () => {
    const head = await fetch(`${api.url}/docs`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const post = await fetch(`${api.url}/docs`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${api.url}/v1/openapi.json`)).status).toBe(401);
    expect((await fetch(`${api.url}/v1/openapi.json`, { headers: { 'api-key': KEY_A } })).status).toBe(200);
  });

  it('is a 404 when the host turns it off', async () => {
    const handler = createRestHandler({
      docevals: createDocevals({ storage: memoryStorage() }),
      authenticate: apiKeyAuthenticator({ keys: { k: 'org' } }),
      docs: false,
    });
    const off = await handler(new Request('http://127.0.0.1/docs', { headers: { 'api-key': 'k' } }));
    expect(off.status).toBe(404);
    expect((await off.json()).error.code).toBe('not_found');
  });
});
