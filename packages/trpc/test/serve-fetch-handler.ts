import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { memoryStorage } from '@docevals/adapters/memory';
import { apiKeyAuthenticator, createDocevals, type Docevals, type DocevalsOptions } from '@docevals/core';
import { createDocevalsFetchHandler, type DocevalsFetchHandlerLimits } from '../src/index.js';
import { faultyStorage } from '../../../test-support/faulty-storage.js';

export const KEYS = { key_a: 'org_a', key_b: 'org_b' };
export const MAX_BODY = 32 * 1024 * 1024;

export interface Served {
  url: string;
  storage: ReturnType<typeof faultyStorage>;
  docevals: Docevals;
  errors: unknown[];
  close(): Promise<void>;
}

/** `createDocevalsFetchHandler` behind a plain node server on 127.0.0.1: the request body streams in as a web ReadableStream. */
export async function serve(
  options: Partial<DocevalsOptions> = {},
  limits: Partial<DocevalsFetchHandlerLimits> = {},
): Promise<Served> {
  const storage = faultyStorage(memoryStorage());
  const docevals = createDocevals({ storage, ...options });
  const errors: unknown[] = [];
  const served = await serveHandler(docevals, limits, (error) => errors.push(error));
  return { url: served.url, storage, docevals, errors, close: () => served.close() };
}

/** `createDocevalsFetchHandler` over `docevals` (the test keys) behind a plain node server on 127.0.0.1. */
export async function serveHandler(
  docevals: Docevals,
  limits: Partial<DocevalsFetchHandlerLimits> = {},
  onError: (error: unknown) => void = () => {},
): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createDocevalsFetchHandler({
    docevals,
    authenticate: apiKeyAuthenticator({ keys: KEYS }),
    endpoint: '/trpc',
    limits: { maxBodyBytes: MAX_BODY, ...limits },
    onError,
  });
  const server: Server = createServer((req, res) => void answer(req, res));
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await handler(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers,
        ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
      } as RequestInit),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
    if (response.headers.get('connection') === 'close') req.destroy();
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/trpc`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
