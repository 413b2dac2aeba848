import {
  DocevalsError,
  isAuthenticationRefusal,
  readApiKey,
  unauthorizedError,
  type Authenticate,
  type AuthenticateContext,
  type Docevals,
  type DocumentContent,
  type ExportStream,
} from '@docevals/core';
import {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_EVENT_STREAMS_PER_ORGANIZATION,
  eventStreamSlots,
  type BodyReadOptions,
  type StreamSlots,
} from '@docevals/core/internal';
import { Hono, type Context } from 'hono';
import { ENDPOINTS, type Endpoint } from './endpoints.js';
import { errorResponse, isUnexpected, wwwAuthenticate } from './error-response.js';
import { DOCS_CSP, docsInitScript, docsPage, loadRendererBundle } from './docs-page.js';
import { createOpenApiDocument } from './openapi-document.js';
import { isMultipart, readFormBody } from './read-form-body.js';
import { jsonBody } from './json-stream.js';
import { readJsonBody, readTextBody } from './read-json-body.js';
import { listFields, listValues } from './read-query.js';
import { streamEvents } from './sse.js';

/** {@link RestLimits.maxEventStreamsPerOrganization}'s default. */
export { DEFAULT_MAX_EVENT_STREAMS_PER_ORGANIZATION };

/**
 * A fetch-style handler: web `Request` in, web `Response` out. `context.nodeRequest` (set by `toNodeHandler` of
 * `@docevals/rest/node`) reaches `authenticate`.
 */
export type RestHandler = (request: Request, context?: RestRequestContext) => Promise<Response>;

/** What a host may pass with a request, for its `authenticate`. */
export interface RestRequestContext {
  /** The node request the `Request` was made from (Express's `req`, with its session, user, cookies). */
  nodeRequest?: unknown;
}

export interface RestLimits {
  /** Largest request body accepted, counted while it streams in. @default 33_554_432 (32 MiB) */
  maxBodyBytes: number;
  /**
   * Milliseconds the whole request body may take to arrive once reading began; slower is a 408 `request_timeout`
   * (`Connection: close`). `0`: no limit. @default 60_000
   */
  bodyTimeoutMs: number;
  /**
   * Event streams one organization may hold open at once, counted by what `authenticate` answered (not by a header
   * it may not have used: a client could name new keys for new places); one more is a 429 `rate_limited`. `0`: no
   * limit. The cap is the service's (`createDocevals({ limits: { maxEventStreamsPerOrganization } })`), shared with
   * the tRPC `iterations.events` subscriptions of the same service: this option sets that one cap, and a different
   * value set elsewhere for the same service is a TypeError here. @default the service's (20)
   */
  maxEventStreamsPerOrganization: number;
}

export interface RestHandlerOptions {
  /** The service every request is translated to. */
  docevals: Docevals;
  /**
   * `(request, { transport, nodeRequest })` -> organization id; null for the API-key 401, or `refuse(message,
   * { wwwAuthenticate })` for a 401 in the host's words. Use `apiKeyAuthenticator({ keys })` from `@docevals/core`
   * for a fixed set of keys.
   */
  authenticate: Authenticate;
  /**
   * Where the handler is mounted: every path, `/health` and the OpenAPI document included, lives under it.
   * @default '' (the API at `/v1/...`)
   * @example '/api/docevals'
   */
  basePath?: string;
  limits?: Partial<RestLimits>;
  /**
   * Called with every failure answered with a 5xx (a bug, a store or an extractor failing): the place to log.
   * The response body never carries these details.
   * @default (error) => console.error('[docevals/rest]', error)
   */
  onError?: (error: unknown, request: Request) => void;
  /**
   * Serve the API reference for people at `GET /docs` (no key: it holds no data), rendered by Redoc from this
   * handler's own OpenAPI document with every asset served from here (no CDN). Needs the optional peer dependency
   * `redoc`; without it, or with `false`, `/docs` answers 404. `{ redocBundle }` names the file
   * `redoc/bundles/redoc.standalone.js` where the package cannot be resolved from this module (a bundled server).
   * @default true
   */
  docs?: boolean | { redocBundle: string };
  /** How often an event stream sends a comment line, so proxies keep it open. @default 15_000 */
  sseHeartbeatMs?: number;
}

/** Default body limit: 32 MiB (docs/spec/service.md, Limits). */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

type Env = { Variables: { organizationId: string }; Bindings: RestRequestContext | undefined };

/**
 * The REST API of docevals as one fetch handler. It only translates: it authenticates the caller, reads the JSON
 * body (415, 413 while streaming, 400), calls `docevals.*(organizationId, { ...body, ...query, ...pathParams })`,
 * and answers the result with 200 or the error with the status of its code (`error-response.ts`). All validation
 * happens in the core, so REST, tRPC and in-process callers get the same issues with the same paths.
 *
 * Serves every endpoint of the interface and of docs/spec/service.md's REST table, `GET /health` (no key;
 * `?detail=true` with a key adds the job runner's queues),
 * `GET /v1/openapi.json` (OpenAPI 3.1) and `GET /docs` (the reference for people, no key), all under `basePath`.
 * Unknown paths are 404; a known path with another method is 405 with an `Allow` header.
 *
 * @example
 * import { apiKeyAuthenticator, createDocevals } from '@docevals/core';
 * import { memoryStorage } from '@docevals/adapters/memory';
 * import { createRestHandler } from '@docevals/rest';
 *
 * const handler = createRestHandler({
 *   docevals: createDocevals({ storage: memoryStorage() }),
 *   authenticate: apiKeyAuthenticator({ keys: { [process.env.DOCEVALS_KEY!]: 'org_acme' } }),
 *   basePath: '/api/docevals',
 * });
 * // Bun.serve({ fetch: handler }), Deno.serve(handler), or toNodeHandler(handler) from '@docevals/rest/node'.
 */
export function createRestHandler(options: RestHandlerOptions): RestHandler {
  const settings = settingsOf(options);
  const { basePath, fail } = settings;
  const app = new Hono<Env>({ strict: true }).basePath(basePath);
  app.onError((error, c) => fail(error, c.req.raw));
  app.notFound((c) => {
    const path = c.req.path;
    const allow = allowedMethods(basePath === '/' ? path : path.slice(basePath.length));
    if (allow.length > 0) return methodNotAllowed(allow);
    const shown = path.length > 200 ? `${path.slice(0, 200)}...` : path;
    return fail(new DocevalsError('not_found', `No endpoint at ${c.req.method} ${shown}.`), c.req.raw);
  });
  const identify = (request: Request, env: RestRequestContext | undefined) => identifyCaller(options.authenticate, request, env);

  // Before authentication: a probe needs no key. `?detail=true` adds, behind the key, the caller's organization's
  // queued and running iterations per model and the job runner's fleet totals, without another organization's names.
  app.get('/health', async (c) => {
    if (c.req.query('detail') !== 'true') return c.json({ status: 'ok' });
    const caller = await identify(c.req.raw, c.env);
    if (typeof caller !== 'string') return caller;
    return c.json({ status: 'ok', jobs: await settings.docevals.jobStats(caller) });
  });
  app.all('/health', () => methodNotAllowed(['GET', 'HEAD']));

  let openApiJson: string | undefined; // built on first request: most hosts never ask for it
  const openApi = () => (openApiJson ??= JSON.stringify(createOpenApiDocument({ basePath })));

  // The reference for people needs no key either: it holds the document, which holds no data.
  if (options.docs !== false) mountDocs(app, options.docs, settings.mountPrefix, openApi);

  app.use('*', async (c, next) => {
    const caller = await identify(c.req.raw, c.env);
    if (typeof caller !== 'string') return caller;
    c.set('organizationId', caller);
    await next();
  });

  app.get('/v1/openapi.json', (c) => c.body(openApi(), 200, { 'content-type': 'application/json' }));

  for (const endpoint of ENDPOINTS) {
    app.on(endpoint.method.toUpperCase(), honoPath(endpoint.path), (c) => serve(settings, c, endpoint));
  }

  return async (request, context) => {
    try {
      return await app.fetch(request, context);
    } catch (error) {
      return fail(error, request);
    }
  };
}

/** What serving a request needs of the options, checked and with their defaults. */
interface Settings {
  docevals: Docevals;
  basePath: string;
  /** The base path as a URL prefix: '' at the root. */
  mountPrefix: string;
  maxBodyBytes: number;
  bodyRead: BodyReadOptions;
  streams: StreamSlots;
  heartbeatMs: number;
  /** The response of a failure, after `onError` for an unexpected one. */
  fail: (error: unknown, request: Request) => Response;
}

function settingsOf(options: RestHandlerOptions): Settings {
  const basePath = normalizeBasePath(options.basePath);
  const maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new TypeError('createRestHandler: limits.maxBodyBytes must be a non-negative integer.');
  }
  const bodyRead = { timeoutMs: options.limits?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS };
  if (!(bodyRead.timeoutMs >= 0)) throw new TypeError('createRestHandler: limits.bodyTimeoutMs must be a non-negative number.');
  const streams = eventStreamSlots(options.docevals);
  const maxStreams = options.limits?.maxEventStreamsPerOrganization;
  if (maxStreams !== undefined) streams.configure(maxStreams, 'createRestHandler({ limits })');
  const onError = options.onError ?? ((error: unknown) => console.error('[docevals/rest]', error));
  return {
    docevals: options.docevals,
    basePath,
    mountPrefix: basePath === '/' ? '' : basePath,
    maxBodyBytes,
    bodyRead,
    streams,
    heartbeatMs: options.sseHeartbeatMs ?? 15_000,
    fail: (error, request) => {
      if (isUnexpected(error)) onError(error, request);
      return errorResponse(error);
    },
  };
}

/** The caller's organization, or the 401 to answer: the host's refusal, or the API-key one for `null`. */
async function identifyCaller(authenticate: Authenticate, request: Request, env: RestRequestContext | undefined): Promise<string | Response> {
  const nodeRequest = env?.nodeRequest;
  const context: AuthenticateContext = nodeRequest === undefined ? { transport: 'rest' } : { transport: 'rest', nodeRequest };
  const result = await authenticate(request, context);
  if (typeof result === 'string' && result !== '') return result;
  if (isAuthenticationRefusal(result)) {
    const header = result.wwwAuthenticate ?? wwwAuthenticate(false);
    return errorResponse(new DocevalsError('unauthorized', result.message), { 'www-authenticate': header });
  }
  const keySent = readApiKey(request) !== null;
  return errorResponse(unauthorizedError(keySent), { 'www-authenticate': wwwAuthenticate(keySent) });
}

/** `GET /docs` and its two scripts, the Redoc bundle loaded on first use (a 404 without the package). */
function mountDocs(app: Hono<Env>, docs: RestHandlerOptions['docs'], mountPrefix: string, openApi: () => string): void {
  let bundle: Promise<string | undefined> | undefined;
  const renderer = async () => {
    const code = await (bundle ??= loadRendererBundle(typeof docs === 'object' ? docs.redocBundle : undefined));
    if (code === undefined) {
      throw new DocevalsError('not_found', 'The API reference needs the "redoc" package: install it next to @docevals/rest.');
    }
    return code;
  };
  const asset = (body: string, type: string) =>
    new Response(body, { status: 200, headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' } });
  app.get('/docs', async () => {
    await renderer();
    return new Response(docsPage(mountPrefix), {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_CSP, 'x-content-type-options': 'nosniff' },
    });
  });
  app.get('/docs/redoc.standalone.js', async () => asset(await renderer(), 'text/javascript; charset=utf-8'));
  app.get('/docs/init.js', () => asset(docsInitScript(JSON.parse(openApi())), 'text/javascript; charset=utf-8'));
  for (const path of DOCS_PATHS) app.all(path, () => methodNotAllowed(['GET', 'HEAD']));
}

/** The list fields of each endpoint's query. */
const QUERY_LISTS = new Map(ENDPOINTS.map((endpoint) => [endpoint, listFields(endpoint.query)]));

/** One endpoint's request: its input read from body, query and path, the call, and the answer in its form. */
async function serve(settings: Settings, c: Context<Env>, endpoint: Endpoint): Promise<Response> {
  const { docevals, mountPrefix } = settings;
  const body = await readBody(settings, c, endpoint);
  // One string per field; a list field (`document_ids`) gets every value, comma-separated or repeated.
  const query = endpoint.query ? { ...c.req.query(), ...listValues(c.req.queries(), QUERY_LISTS.get(endpoint)!) } : {};
  const input = { ...body, ...query, ...c.req.param() };
  if (endpoint.sse) return serveEvents(settings, c, endpoint, input);
  const result = await endpoint.call(docevals, c.get('organizationId'), input);
  if (endpoint.produces?.kind === 'file') return fileResponse(result as ExportStream | DocumentContent);
  if (endpoint.background && (body as { background?: unknown }).background === true) {
    const id = (result as { id: string }).id;
    const location = `${mountPrefix}/v1/evals/${encodeURIComponent(c.req.param('evaluation_id')!)}/iterations/${encodeURIComponent(id)}`;
    return c.json(result, 202, { location });
  }
  // Large answers (an iteration of 10,000 predictions) stream member by member instead of one giant string.
  const answer = endpoint.contentUrls ? endpoint.contentUrls(result, mountPrefix) : result;
  return c.body(jsonBody(answer), 200, { 'content-type': 'application/json' });
}

/**
 * An iteration's events as Server-Sent Events. The stream's place is taken first, so a refusal (an organization at its
 * cap, say a burst of 1,000 subscribers) costs no store read; then the iteration is checked (an unknown one is a plain
 * 404, and frees the place).
 */
async function serveEvents(settings: Settings, c: Context<Env>, endpoint: Endpoint, input: Record<string, unknown>): Promise<Response> {
  const organizationId = c.get('organizationId');
  const release = settings.streams.take(organizationId);
  try {
    await endpoint.call(settings.docevals, organizationId, input);
  } catch (error) {
    release();
    throw error;
  }
  const lastEventId = c.req.header('last-event-id') ?? c.req.query('last_event_id');
  // The client has the final event (an EventSource reconnects when a stream closes): 204 tells it to stop.
  if (lastEventId?.endsWith('.final')) {
    release();
    return c.body(null, 204);
  }
  const events = settings.docevals.evals.iterations.events(organizationId, {
    evaluation_id: c.req.param('evaluation_id')!,
    iteration_id: c.req.param('iteration_id')!,
    ...(lastEventId ? { last_event_id: lastEventId } : {}),
  });
  return streamEvents(c, events, settings.heartbeatMs, (error) => settings.fail(error, c.req.raw), release);
}

/** The request's body as the call's input: a text body, a form, JSON, or nothing for an endpoint without one. */
async function readBody(settings: Settings, c: Context<Env>, endpoint: Endpoint) {
  const { maxBodyBytes, bodyRead } = settings;
  const text = endpoint.textBodies ? await readTextBody(c.req.raw, maxBodyBytes, endpoint.textBodies, bodyRead) : null;
  // A text body (a CSV file, say) stands for the JSON body's `{format, content}`; `?validate=false` and
  // `?dry_run=true` for its flags.
  if (text) return { format: text.kind, content: text.text, validate: c.req.query('validate') !== 'false', dry_run: c.req.query('dry_run') === 'true' };
  if (!endpoint.body) return {};
  return endpoint.acceptsForm && isMultipart(c.req.raw)
    ? await readFormBody(c.req.raw, maxBodyBytes, bodyRead)
    : await readJsonBody(c.req.raw, maxBodyBytes, bodyRead);
}

/** A file answer: its chunks streamed as UTF-8 as the client reads them, named by `Content-Disposition`. */
function fileResponse(file: ExportStream | DocumentContent): Response {
  type Chunk = string | Uint8Array;
  const encoder = new TextEncoder();
  const iterator = (file.chunks as AsyncIterable<Chunk>)[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  const filename = file.filename.replace(/[^A-Za-z0-9._-]/g, '_');
  return new Response(body, {
    status: 200,
    headers: { 'content-type': file.content_type, 'content-disposition': `attachment; filename="${filename}"` },
  });
}

function normalizeBasePath(basePath: string | undefined): string {
  if (!basePath || basePath === '/') return '/';
  if (!basePath.startsWith('/') || basePath.includes('?') || basePath.includes('#')) {
    throw new TypeError(`createRestHandler: basePath must be a path starting with "/" (received "${basePath}").`);
  }
  return basePath.replace(/\/+$/, '');
}

/** `/v1/evals/{evaluation_id}` -> `/v1/evals/:evaluation_id`. */
function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** A path template as a pattern on the raw (still percent-encoded) path: a parameter is one non-empty segment. */
function templatePattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

const TEMPLATES: ReadonlyArray<{ pattern: RegExp; methods: string[] }> = [
  ...ENDPOINTS.map(({ path, method }) => ({
    pattern: templatePattern(path),
    methods: method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()],
  })),
  { pattern: templatePattern('/v1/openapi.json'), methods: ['GET', 'HEAD'] },
];

/** The page at `/docs` and its two scripts. */
const DOCS_PATHS = ['/docs', '/docs/redoc.standalone.js', '/docs/init.js'];

/** The methods the endpoints at `path` answer (HEAD wherever GET is: Hono answers HEAD with GET); [] if none. */
function allowedMethods(path: string): string[] {
  const allowed = new Set<string>();
  for (const { pattern, methods } of TEMPLATES) if (pattern.test(path)) for (const m of methods) allowed.add(m);
  return [...allowed];
}

function methodNotAllowed(allow: string[]): Response {
  const list = allow.join(', ');
  return errorResponse(new DocevalsError('method_not_allowed', `This path accepts ${list} only.`), { allow: list });
}
