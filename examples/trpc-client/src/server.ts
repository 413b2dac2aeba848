import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { memoryStorage } from '@docevals/adapters/memory';
import { apiKeyAuthenticator, createDocevals, LIMITS } from '@docevals/core';
import { createDocevalsContext, createDocevalsRouter } from '@docevals/trpc';
import { createHTTPServer } from '@trpc/server/adapters/standalone';

export interface StartServerOptions {
  /** API key -> organization id. */
  keys: Record<string, string>;
  /** @default 3000 (0 picks a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

export interface StartedServer {
  /** The tRPC endpoint, `http://<host>:<port>/trpc`. */
  url: string;
  close(): Promise<void>;
}

/**
 * A standalone tRPC server for docevals: tRPC's own node adapter serving the docevals router at `/trpc`, over the
 * in-memory store, with the offline `local-rules` model and API keys checked by `apiKeyAuthenticator`.
 *
 * @example
 * const server = await startServer({ keys: { 'sk_dev': 'org_dev' }, port: 0 });
 * console.log(server.url); // http://127.0.0.1:53211/trpc
 * await server.close();
 */
export async function startServer(options: StartServerOptions): Promise<StartedServer> {
  const { port = 3000, host = '127.0.0.1' } = options;
  const docevals = createDocevals({ storage: memoryStorage() });
  const server = createHTTPServer({
    router: createDocevalsRouter({ docevals }),
    createContext: createDocevalsContext({ authenticate: apiKeyAuthenticator({ keys: options.keys }) }),
    basePath: '/trpc/',
    // The REST API's default body limit (docs/spec/service.md); tRPC's standalone adapter has none unless told.
    maxBodySize: 32 * 1024 * 1024,
    // At most 16 calls per batch (docs/spec/limits.md): a batch of 150 reads would hold the server.
    maxBatchSize: LIMITS.maxBatchSize,
    // The host's chance to log what callers never see: the cause of an unexpected error.
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`tRPC ${path ?? '(no procedure)'} failed:`, error.cause ?? error);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/trpc`,
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await docevals.close();
    },
  };
}

// `pnpm example:trpc-server` at the repository root: PORT (default 3000), DOCEVALS_API_KEY (default: a fresh
// random key, printed once).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const apiKey = process.env.DOCEVALS_API_KEY ?? `sk_dev_${randomBytes(16).toString('hex')}`;
  const server = await startServer({ keys: { [apiKey]: 'org_example' }, port: Number(process.env.PORT ?? 3000) });
  console.log(`docevals tRPC server on ${server.url}`);
  if (!process.env.DOCEVALS_API_KEY) console.log(`API key (set DOCEVALS_API_KEY to choose one): ${apiKey}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
