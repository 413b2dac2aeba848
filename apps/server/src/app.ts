import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiKeyAuthenticator, createDocevals, type Docevals } from '@docevals/core';
import { createRestHandler, DEFAULT_MAX_BODY_BYTES } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';
import { createWebHandler } from '@docevals/web';
import { loadApiKeys } from './api-keys.js';
import { readConfig, type Env, type StandaloneConfig } from './config.js';
import { configuredExtractors, queueRunner } from './queue.js';
import { loadSecretsKey } from './secrets-key.js';
import { logRequests } from './request-log.js';
import { describeStorage, openStorage } from './storage.js';
import { createTrpcHandler } from './trpc-handler.js';

/** Where the tRPC router is served. */
export const TRPC_ENDPOINT = '/trpc';

export interface StandaloneServer {
  readonly config: StandaloneConfig;
  readonly docevals: Docevals;
  readonly server: Server;
  /** The generated key this start prints: created now, or left unshown by an earlier start that failed. */
  readonly generatedKey?: string;
  /** Starts listening on `HOST:PORT`; resolves with the base URL and prints it with a curl example. */
  listen(): Promise<string>;
  /**
   * Stops accepting connections, lets the requests in flight finish (for up to `graceMs`, then cuts the
   * connections left), and closes the storage. Idempotent.
   */
  close(graceMs?: number): Promise<void>;
}

export interface StandaloneOptions {
  /** Where the start-up message and the request lines go. @default console.log */
  log?: (line: string) => void;
}

/**
 * The standalone docevals server: the REST API at `/v1`, the tRPC router at `/trpc` and the web app at `/`, over lowdb (or Redis), with
 * the `local-rules` model and, given `OPENAI_API_KEY` or `OPENAI_BASE_URL`, every other model through OpenAI.
 * `src/server.ts` runs it with `process.env` and closes it on SIGTERM / SIGINT.
 *
 * @example
 * const app = await createStandaloneServer({ PORT: '0', DATA_DIR: '/tmp/docevals' });
 * const url = await app.listen();
 * // ...
 * await app.close();
 */
export async function createStandaloneServer(env: Env = process.env, options: StandaloneOptions = {}): Promise<StandaloneServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  const config = readConfig(env);
  const apiKeys = await loadApiKeys({ dataDir: config.dataDir, fromEnv: config.apiKeys });
  const authenticate = apiKeyAuthenticator({ keys: apiKeys.keys });

  const extractors = await configuredExtractors(config);
  const secretsKey = await loadSecretsKey(config);

  const storage = await openStorage(config);
  const docevals = createDocevals({
    storage,
    extractors,
    secrets: { cipher: secretsKey.cipher },
    ...(config.concurrency ? { extraction: { concurrency: config.concurrency } } : {}),
    jobs: {
      ...(config.maxRunningIterations ? { maxRunningIterations: config.maxRunningIterations } : {}),
      ...(config.leaseMs ? { leaseMs: config.leaseMs } : {}),
      ...(await queueRunner(config, log)),
      onError: (error) => console.error('[docevals/jobs]', error),
    },
  });

  // A wrong master key stops the start here with what to do, rather than failing each organization's runs later.
  const secretsCheck = await docevals.secrets.check().catch(async (error: unknown) => {
    await docevals.close().catch(() => undefined);
    throw new Error(`organization secrets: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });

  const rest = createRestHandler({ docevals, authenticate, onError: (error) => console.error('[docevals]', error) });
  const trpc = createTrpcHandler({
    docevals,
    authenticate,
    endpoint: TRPC_ENDPOINT,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    onError: (error) => console.error('[docevals]', error),
  });
  // The web app (packages/web, built by `pnpm start` / `pnpm build`): every path the APIs do not serve.
  // DOCEVALS_WEB_DIR: where its built files are (scripts/start.mjs sets it: the bundled server cannot find them).
  const web = createWebHandler(env.DOCEVALS_WEB_DIR ? { directory: env.DOCEVALS_WEB_DIR } : {});
  const under = (pathname: string, prefix: string) => pathname === prefix || pathname.startsWith(`${prefix}/`);
  const route = (request: Request) => {
    const { pathname } = new URL(request.url);
    if (under(pathname, TRPC_ENDPOINT)) return trpc(request);
    if (under(pathname, '/v1') || pathname.startsWith('/docs') || pathname === '/health') return rest(request);
    return web(request);
  };
  const handler = toNodeHandler(route);
  let closing: Promise<void> | undefined;
  const server = createServer(
    logRequests((req, res) => {
      // While shutting down, a kept-alive connection must not wait for another request after this one.
      if (closing) res.setHeader('connection', 'close');
      handler(req, res);
    }, log),
  );

  return {
    config,
    docevals,
    server,
    generatedKey: apiKeys.generated,
    async listen() {
      await new Promise<void>((resolve, reject) => {
        const refused = (error: NodeJS.ErrnoException) => reject(listenError(error, config));
        server.once('error', refused);
        server.listen(config.port, config.host, () => {
          server.off('error', refused);
          resolve();
        });
      });
      const { port } = server.address() as AddressInfo;
      const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
      const key = apiKeys.generated ?? '<your key>';
      log(`docevals listening on ${url} (REST at /v1, tRPC at ${TRPC_ENDPOINT}, OpenAPI at /v1/openapi.json)`);
      log(`API reference: ${url}/docs`);
      log(`web app: ${url}/ (sign in with an API key)`);
      log(
        `organization secrets: AES-256-GCM, master key ${secretsCheck.key_id} from ${secretsKey.source}` +
          (secretsCheck.reencrypted > 0 ? ` (${secretsCheck.reencrypted} secrets re-encrypted from the previous key)` : ''),
      );
      log(`storage: ${describeStorage(config)}; models: ${docevals.models().join(', ')}${config.queue ? '; jobs: enqueued on BullMQ for workers (pnpm worker)' : ''}`);
      if (apiKeys.generated) {
        log(`generated API key for organization "default" (kept in ${apiKeys.file}, shown only this once):`);
        log(`  ${apiKeys.generated}`);
        await apiKeys.markShown();
      } else if (apiKeys.file) {
        log(`API keys: ${apiKeys.file}`);
      }
      log(`try: curl -H 'Api-Key: ${key}' ${url}/v1/evals`);
      return url;
    },
    close(graceMs = 10_000) {
      closing ??= (async () => {
        if (server.listening) {
          // close() stops accepting and calls back once the last connection is gone; idle kept-alive ones go now,
          // busy ones after their response (they answer with Connection: close), stragglers after the grace.
          const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          const timer = setTimeout(() => server.closeAllConnections(), graceMs);
          timer.unref();
          await stopped;
          clearTimeout(timer);
        }
        await docevals.close();
      })();
      return closing;
    },
  };
}

/** A listen failure that says what to do: a taken port names the port and how to choose another. */
function listenError(error: NodeJS.ErrnoException, config: Pick<StandaloneConfig, 'port' | 'host'>): Error {
  const where = `${config.host}:${config.port}`;
  const other = config.port === 3000 ? 3001 : 3000;
  if (error.code === 'EADDRINUSE') {
    return new Error(
      `port ${config.port} is already in use on ${config.host} (another server is listening there). ` +
        `Stop it, or choose another port: PORT=${other} pnpm start`,
      { cause: error },
    );
  }
  if (error.code === 'EACCES') {
    return new Error(`not allowed to listen on ${where}: choose a port above 1023, e.g. PORT=${other} pnpm start`, { cause: error });
  }
  if (error.code === 'EADDRNOTAVAIL') {
    return new Error(`cannot listen on ${where}: HOST=${config.host} is not an address of this machine (e.g. HOST=127.0.0.1).`, { cause: error });
  }
  return error;
}
