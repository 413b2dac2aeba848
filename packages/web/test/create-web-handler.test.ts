import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toNodeHandler } from '@docevals/rest/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebHandler } from '../src/index.js';

const INDEX = '<!doctype html><title>docevals</title><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script>';

let root: string;
let outside: string;
let server: Server;
let url: string;

/** A built app as Vite writes it, next to a secret file the handler must never serve. */
beforeAll(async () => {
  const base = await mkdtemp(join(tmpdir(), 'docevals-web-'));
  root = join(base, 'app');
  outside = join(base, 'secret.txt');
  await mkdir(join(root, 'assets'), { recursive: true });
  await writeFile(join(root, 'index.html'), INDEX);
  await writeFile(join(root, 'assets/index-abc123.js'), 'console.log("app");');
  await writeFile(join(root, 'assets/index-def456.css'), 'body{}');
  await writeFile(join(root, 'assets/logo-1.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(root, 'robots.txt'), 'User-agent: *');
  await writeFile(outside, 'secret');
  const web = createWebHandler({ directory: root });
  server = createServer(toNodeHandler(web));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async () => rm(base, { recursive: true, force: true });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends the request line as written (fetch and the URL parser would fold `..` segments before they leave). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
    socket.on('end', () => resolve({ status: Number(data.split(' ')[1]), body: data.slice(data.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
  });
}

describe('createWebHandler', () => {
  it('serves index.html for / and for every app route (client-side routing), revalidated on each load', async () => {
    for (const path of ['/', '/evals/eval_1', '/evals/eval_1/documents/doc_1', '/evals/eval_1/compare?base=a&head=b']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(await response.text()).toBe(INDEX.replace('<title>', '<base href="/"><meta name="docevals-base" content=""><title>'));
    }
  });

  it('serves the app under a basePath: index.html names it, assets and routes resolve under it, the rest is 404', async () => {
    const mounted = createWebHandler({ directory: root, basePath: '/evals/' });
    for (const path of ['/evals', '/evals/', '/evals/evals/eval_1/compare?base=a&head=b']) {
      const response = await mounted(new Request(`http://h${path}`));
      expect(response.status, path).toBe(200);
      const html = await response.text();
      expect(html).toContain('<base href="/evals/"><meta name="docevals-base" content="/evals">');
    }
    const asset = await mounted(new Request('http://h/evals/assets/index-abc123.js'));
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe('console.log("app");');
    for (const path of ['/', '/assets/index-abc123.js', '/evalsx', '/trpc/evals.list']) {
      expect((await mounted(new Request(`http://h${path}`))).status, path).toBe(404);
    }
    expect(() => createWebHandler({ basePath: 'evals' })).toThrow(TypeError);
    expect(() => createWebHandler({ basePath: '/a"><script>' })).toThrow(TypeError);
  });

  it('serves the hashed assets with their content type and a year-long immutable cache', async () => {
    const cases: Array<[string, string, string]> = [
      ['/assets/index-abc123.js', 'text/javascript; charset=utf-8', 'console.log("app");'],
      ['/assets/index-def456.css', 'text/css; charset=utf-8', 'body{}'],
      ['/assets/logo-1.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>'],
    ];
    for (const [path, type, body] of cases) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await response.text()).toBe(body);
    }
    const robots = await fetch(`${url}/robots.txt`);
    expect(robots.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  it('answers HEAD with the headers and no body', async () => {
    const asset = await fetch(`${url}/assets/index-abc123.js`, { method: 'HEAD' });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-length')).toBe(String('console.log("app");'.length));
    expect(await asset.text()).toBe('');
    const page = await fetch(`${url}/evals/x`, { method: 'HEAD' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toBe('');
  });

  it('answers 404 for an asset that is not there (never index.html in its place)', async () => {
    for (const path of ['/assets/missing-000.js', '/favicon.ico', '/assets/', '/assets']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('<div id="root">');
    }
  });

  it('never serves a file outside its folder: plain, encoded and backslash traversals are 404', async () => {
    const paths = [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2E%2E%2F%2E%2E%2Fsecret.txt',
      '/assets/..%5c..%5csecret.txt',
      '/..%5csecret.txt',
      '/%252e%252e/secret.txt',
      '/assets/%00.js',
      '/assets/%E0%A4%A.js',
    ];
    // The raw client reaches the handler: the same request line for a file inside is served.
    expect(await rawGet('/assets/index-abc123.js')).toMatchObject({ status: 200, body: expect.stringContaining('console.log') });
    for (const path of paths) {
      const response = await rawGet(path);
      expect(response.body, path).not.toContain('secret');
      expect([400, 404], path).toContain(response.status);
    }
  });

  it('refuses other methods with 405 and Allow', async () => {
    const response = await fetch(`${url}/`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it('says how to build the app when it is not built (503 for app routes, 404 for assets)', async () => {
    const web = createWebHandler({ directory: join(root, 'not-built') });
    const page = await web(new Request('http://x/evals/1'));
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('pnpm build');
    expect((await web(new Request('http://x/assets/index-abc123.js'))).status).toBe(404);
  });
});
