import type { AddressInfo } from 'node:net';
import { apiKeyAuthenticator, LIMITS, type Docevals } from '@docevals/core';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { createDocevalsContext, createDocevalsRouter, type DocevalsRouter } from '../src/index.js';

/** The keys of the test servers: two organizations, so tenancy can be checked. */
export const KEYS = { key_org_a: 'org_a', key_org_b: 'org_b' } as const;

export interface ServedRouter {
  /** `http://127.0.0.1:<port>/trpc` */
  url: string;
  /** A typed client sending `key` as `Api-Key` (no header when undefined). */
  client(key?: string, headerName?: 'Api-Key' | 'Authorization'): ReturnType<typeof createTRPCClient<DocevalsRouter>>;
  close(): Promise<void>;
}

/** Serves the docevals router with tRPC's standalone adapter on 127.0.0.1, on a port the system picks. */
export async function serveRouter(docevals: Docevals, options: { maxBodySize?: number } = {}): Promise<ServedRouter> {
  const server = createHTTPServer({
    router: createDocevalsRouter({ docevals }),
    createContext: createDocevalsContext({ authenticate: apiKeyAuthenticator({ keys: KEYS }) }),
    basePath: '/trpc/',
    maxBatchSize: LIMITS.maxBatchSize,
    ...(options.maxBodySize === undefined ? {} : { maxBodySize: options.maxBodySize }),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/trpc`;
  return {
    url,
    client: (key, headerName = 'Api-Key') =>
      createTRPCClient<DocevalsRouter>({
        links: [
          httpBatchLink({
            url,
            headers: key === undefined ? {} : headerName === 'Api-Key' ? { 'Api-Key': key } : { Authorization: `Bearer ${key}` },
          }),
        ],
      }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
