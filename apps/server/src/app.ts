import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiKeyAuthenticator, createDocevals, type Docevals } from '@docevals/core';
import { createRestHandler, DEFAULT_MAX_BODY_BYTES } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';
import { createWebHandler } from '@docevals/web';
import { loadApiKeys, type ApiKeys } from './api-keys.js';
import { readConfig, type Env, type StandaloneConfig } from './config.js';
import { configuredExtractors, queueRunner } from './queue.js';
import { createLogger, loggerOptions, type Logger } from './observability/logger.js';
import { checkReadiness, listenOperations, serveOperationsEndpoint } from './observability/operations-endpoints.js';
import { startTelemetry, type Telemetry } from './observability/telemetry.js';
import { observeRequests } from './request-log.js';
import { loadSecretsKey, type SecretsKey } from './secrets-key.js';
import { describeStorage, openStorage } from './storage.js';
import { openRateLimit } from './rate-limit.js';
import { sampleEvaluation } from './sample/index.js';
import { createTrpcHandler } from './trpc-handler.js';

/** Where the tRPC router is served. */
export const TRPC_ENDPOINT = '/trpc';

export interface StandaloneServer {
  readonly config: StandaloneConfig;
  readonly docevals: Docevals;
  readonly server: Server;
  /** The generated key this start prints: created now, or left unshown by an earlier start that failed. */
  readonly generatedKey?: string;
  readonly logger: Logger;
  /** The process's tracer provider and metrics (set up by the first server or worker of the process). */
  readonly telemetry: Telemetry;
  /** The separate metrics address (`DOCEVALS_METRICS_PORT`) once listening. */
  metricsUrl?: string;
  /** Starts listening on `HOST:PORT`; resolves with the base URL and prints it with a curl example. */
  listen(): Promise<string>;
  /**
   * Stops accepting connections, lets the requests in flight finish (for up to `graceMs`, then cuts the
   * connections left), and closes the storage. Idempotent.
   */
  close(graceMs?: number): Promise<void>;
}

export interface StandaloneOptions {
  /** Where the start-up message goes, line by line. @default the logger, at info level */
  log?: (line: string) => void;
  /** Where request lines and errors go (JSON lines). @default `createLogger` on standard output, `LOG_LEVEL`, `LOG_FORMAT` */
  logger?: Logger;
}

/** The service over the configured store and models, its organization secrets' master key checked. */
async function openService(config: StandaloneConfig, logger: Logger, log: (line: string) => void) {
  const extractors = await configuredExtractors(config);
  const secretsKey = await loadSecretsKey(config);

  const storage = await openStorage(config);
  const docevals = createDocevals({
    storage,
    extractors,
    secrets: { cipher: secretsKey.cipher },
    sample: sampleEvaluation,
    ...(config.concurrency ? { extraction: { concurrency: config.concurrency } } : {}),
    jobs: {
      ...(config.maxRunningIterations ? { maxRunningIterations: config.maxRunningIterations } : {}),
      ...(config.leaseMs ? { leaseMs: config.leaseMs } : {}),
      ...(config.maxIterationsPerOrganization ? { maxIterationsPerOrganization: config.maxIterationsPerOrganization } : {}),
      ...(await queueRunner(config, log)),
      onError: (error) => logger.error({ err: error }, 'background job failed'),
    },
  });
  return { storage, docevals, secretsKey };
}

/** A wrong master key stops the start here with what to do, rather than failing each organization's runs later. */
async function checkSecrets(docevals: Docevals): Promise<SecretsCheck> {
  return docevals.secrets.check().catch(async (error: unknown) => {
    await docevals.close().catch(() => undefined);
    throw new Error(`organization secrets: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
}

type SecretsCheck = Awaited<ReturnType<Docevals['secrets']['check']>>;

interface RouteOptions {
  docevals: Docevals;
  authenticate: ReturnType<typeof apiKeyAuthenticator>;
  config: StandaloneConfig;
  env: Env;
  logger: Logger;
}

/** The request router: REST at `/v1`, tRPC at {@link TRPC_ENDPOINT} (both behind the per-key rate limit), the web app. */
async function createRoute({ docevals, authenticate, config, env, logger }: RouteOptions) {
  const reportError = (error: unknown) => logger.error({ err: error }, 'request failed');
  // DOCEVALS_REDOC_BUNDLE: the API reference's renderer (scripts/start.mjs sets it: the bundle cannot resolve redoc).
  const rest = createRestHandler({
    docevals,
    authenticate,
    onError: reportError,
    limits: { bodyTimeoutMs: config.bodyTimeoutMs },
    ...(env.DOCEVALS_REDOC_BUNDLE ? { docs: { redocBundle: env.DOCEVALS_REDOC_BUNDLE } } : {}),
  });
  const trpc = createTrpcHandler({
    docevals,
    authenticate,
    endpoint: TRPC_ENDPOINT,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    bodyTimeoutMs: config.bodyTimeoutMs,
    onError: reportError,
  });
  // The web app (packages/web, built by `pnpm start` / `pnpm build`): every path the APIs do not serve.
  // DOCEVALS_WEB_DIR: where its built files are (scripts/start.mjs sets it: the bundled server cannot find them).
  const web = createWebHandler(env.DOCEVALS_WEB_DIR ? { directory: env.DOCEVALS_WEB_DIR } : {});
  const under = (pathname: string, prefix: string) => pathname === prefix || pathname.startsWith(`${prefix}/`);
  const rateLimit = await openRateLimit(config);
  /** The APIs behind the per-key rate limit; its `RateLimit-*` headers on what they answer. */
  const limited = async (request: Request, transport: 'rest' | 'trpc', handle: (request: Request) => Promise<Response>) => {
    const decision = rateLimit ? await rateLimit.limit(request, transport) : null;
    if (decision && 'refused' in decision) return decision.refused;
    const response = await handle(request);
    if (decision) for (const [name, value] of Object.entries(decision.headers)) response.headers.set(name, value);
    return response;
  };
  const route = (request: Request) => {
    const { pathname } = new URL(request.url);
    if (under(pathname, TRPC_ENDPOINT)) return limited(request, 'trpc', trpc);
    if (under(pathname, '/v1')) return limited(request, 'rest', rest);
    if (pathname.startsWith('/docs') || pathname === '/health') return rest(request);
    return web(request);
  };
  return { route, rateLimit };
}

/** Connections waiting to be accepted (the listen backlog). */
const LISTEN_BACKLOG = 4_096;

/** Listens on the configured `HOST:PORT`; a refusal rejects with what to do ({@link listenError}). */
function listenOn(server: Server, config: StandaloneConfig): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => reject(listenError(error, config));
    server.once('error', refused);
    // A backlog past Node's 511 (the kernel caps it at net.core.somaxconn): 1,000 clients connecting at once (issue 26)
    // would otherwise see their SYNs dropped and retried a second or more later, an unbounded wait before any answer.
    server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', refused);
      resolve();
    });
  });
}

interface StartMessage {
  config: StandaloneConfig;
  docevals: Docevals;
  apiKeys: ApiKeys;
  secretsKey: SecretsKey;
  secretsCheck: SecretsCheck;
}

/** The start-up message: where everything is served, the master key, the store and models, the key to try with. */
async function printStart(log: (line: string) => void, url: string, { config, docevals, apiKeys, secretsKey, secretsCheck }: StartMessage) {
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
  log(`sample evaluation (32 invoices, receipts and forms, two iterations): "Load the sample" in the web app, or curl -X POST -H 'Api-Key: ${key}' ${url}/v1/evals/sample`);
}

/** Stops `server` if it listens: idle connections now, busy ones after their response, stragglers after `graceMs`. */
async function stopServer(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return;
  // close() stops accepting and calls back once the last connection is gone; idle kept-alive ones go now,
  // busy ones after their response (they answer with Connection: close), stragglers after the grace.
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  timer.unref();
  await stopped;
  clearTimeout(timer);
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
  const config = readConfig(env);
  const logger = options.logger ?? createLogger(loggerOptions(env));
  const log = options.log ?? ((line: string) => logger.info(line));
  const telemetry = await startTelemetry(env, { serviceName: 'docevals-server' });
  const apiKeys = await loadApiKeys({ dataDir: config.dataDir, fromEnv: config.apiKeys });
  const authenticate = apiKeyAuthenticator({ keys: apiKeys.keys });
  const { storage, docevals, secretsKey } = await openService(config, logger, log);
  if (config.queue) telemetry.metrics.watchQueue(docevals);
  const secretsCheck = await checkSecrets(docevals);
  const { route, rateLimit } = await createRoute({ docevals, authenticate, config, env, logger });
  const handler = toNodeHandler(route);
  let closing: Promise<void> | undefined;
  const readiness = () => checkReadiness({ storage, ...(config.queue ? { queue: docevals } : {}), closing: () => closing !== undefined });
  const endpoints = { metrics: telemetry.metrics, readiness, ...(config.metricsToken ? { token: config.metricsToken } : {}) };
  const server = createServer(
    observeRequests(
      (req, res) => {
        // While shutting down, a kept-alive connection must not wait for another request after this one.
        if (closing) res.setHeader('connection', 'close');
        if (serveOperationsEndpoint(req, res, endpoints)) return;
        handler(req, res);
      },
      { logger, metrics: telemetry.metrics },
    ),
  );
  let metricsServer: Server | undefined;

  const app: StandaloneServer = {
    config,
    docevals,
    server,
    generatedKey: apiKeys.generated,
    logger,
    telemetry,
    async listen() {
      await listenOn(server, config);
      const url = baseUrl(config.host, (server.address() as AddressInfo).port);
      await printStart(log, url, { config, docevals, apiKeys, secretsKey, secretsCheck });
      if (config.metricsPort !== undefined) {
        metricsServer = await listenOperations({ ...endpoints, port: config.metricsPort, host: config.metricsHost ?? '127.0.0.1' });
        app.metricsUrl = baseUrl(config.metricsHost ?? '127.0.0.1', (metricsServer.address() as AddressInfo).port);
        log(`metrics and probes: ${app.metricsUrl}/metrics, /health/live, /health/ready`);
      }
      return url;
    },
    close(graceMs = 10_000) {
      closing ??= (async () => {
        await stopServer(server, graceMs);
        if (metricsServer) await new Promise<void>((resolve) => metricsServer!.close(() => resolve()));
        await docevals.close();
        rateLimit?.close();
      })();
      return closing;
    },
  };
  return app;
}

const baseUrl = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

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
