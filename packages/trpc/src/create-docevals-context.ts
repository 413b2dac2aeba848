import { isAuthenticationRefusal, readApiKey, type Authenticate } from '@docevals/core';
import { toTRPCError } from './error-table.js';

/** The context of every docevals procedure: the caller's organization, null when no valid key came with the call. */
export interface DocevalsContext {
  organizationId: string | null;
  /** Whether the request carried an API key (`Api-Key` or `Authorization: Bearer`): words the 401 when it is refused. */
  apiKeySent?: boolean;
  /** The message of the host's refusal (`refuse(message)` returned by `authenticate`): the 401's message. */
  refusal?: string;
  /**
   * For a batch: the bytes its answers may still take (`maxBatchAnswerBytes` at the start). Each call's answer is
   * counted once built; an answer past the budget is a 413 instead (the batch's calls run together: each is built).
   */
  answerBudget?: { limit: number; remaining: number };
}

/** Node's `IncomingMessage.headers` (and Express's, Fastify's): lower-case names, repeated headers as arrays. */
export type NodeRequestHeaders = Record<string, string | string[] | undefined>;

/**
 * What the context helper reads from the options a tRPC adapter passes to `createContext`: the request's headers,
 * a fetch `Headers` (fetch adapter, Next.js app router) or a node headers object (standalone, Express, Fastify,
 * ws adapters).
 */
export interface DocevalsContextRequest {
  /** A fetch `Request` (fetch adapter) or a node `IncomingMessage` (standalone, Express, Fastify adapters). */
  req: { headers: Headers | NodeRequestHeaders; url?: string; method?: string };
  /**
   * tRPC's call info: its `connectionParams` carry the key for a client that cannot send headers (a browser's
   * `EventSource` for `httpSubscriptionLink`, websockets): `{ apiKey: '<key>' }`, read when no header carries one,
   * and only for a subscription (`type: 'subscription'`): a query or mutation authenticates with its headers, so a
   * key in a URL (where `connectionParams` travel) never opens anything but an events stream.
   */
  info?: { type?: string; isBatchCall?: boolean; connectionParams?: Record<string, string | undefined> | null } | undefined;
}

export interface CreateDocevalsContextOptions {
  /**
   * Maps the request to the caller's organization, or null, or `refuse(message)`: the same function the REST
   * handler takes, so both transports accept the same callers. It receives a `Request` (for a node adapter, one made
   * from the node request's URL and headers, without its body) and `{ transport: 'trpc', nodeRequest }` (the node
   * request itself, where there is one). `apiKeyAuthenticator({ keys })` from `@docevals/core` is a ready one.
   */
  authenticate: Authenticate;
  /**
   * The bytes (JSON) the answers of one batch may sum to: past it, a 413 `payload_too_large` for the calls whose
   * answers would pass it, so a batch of 16 whole evaluations is never sent at once. The calls of a batch run
   * together, so each answer is still built (whole-evaluation reads run two at a time per organization). `0`: no
   * budget.
   * @default 33_554_432 (32 MiB, as a request body)
   */
  maxBatchAnswerBytes?: number;
}

/** {@link CreateDocevalsContextOptions.maxBatchAnswerBytes}'s default. */
export const DEFAULT_MAX_BATCH_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * A `createContext` for tRPC's adapters: authenticates the request's headers and returns `{ organizationId }`.
 * It does not refuse a request itself: every docevals procedure answers UNAUTHORIZED when `organizationId` is null.
 * A failing `authenticate` is reported like a procedure's failure (`storage_error` -> SERVICE_UNAVAILABLE, anything
 * unexpected -> INTERNAL_SERVER_ERROR without details).
 *
 * @example
 * // node: standalone, Express, Fastify
 * createHTTPServer({ router, createContext: createDocevalsContext({ authenticate }), basePath: '/trpc/' });
 * // fetch: Next.js app router, Hono, Bun, Deno, workers
 * fetchRequestHandler({ endpoint: '/trpc', req, router, createContext: createDocevalsContext({ authenticate }) });
 */
export function createDocevalsContext(options: CreateDocevalsContextOptions): (opts: DocevalsContextRequest) => Promise<DocevalsContext> {
  const { authenticate } = options;
  const maxBatchAnswerBytes = options.maxBatchAnswerBytes ?? DEFAULT_MAX_BATCH_ANSWER_BYTES;
  return async ({ req, info }) => {
    const budget = info?.isBatchCall && maxBatchAnswerBytes > 0 ? { answerBudget: { limit: maxBatchAnswerBytes, remaining: maxBatchAnswerBytes } } : {};
    let result: Awaited<ReturnType<Authenticate>>;
    const headers = withConnectionKey(toHeaders(req.headers), info?.type === 'subscription' ? info.connectionParams : null);
    const isFetchRequest = isRequest(req);
    try {
      const request = isFetchRequest && headers === req.headers ? req : toRequest(req, headers);
      result = await authenticate(request, isFetchRequest ? { transport: 'trpc' } : { transport: 'trpc', nodeRequest: req });
    } catch (error) {
      throw toTRPCError(error);
    }
    if (typeof result === 'string' && result !== '') return { organizationId: result, ...budget };
    if (isAuthenticationRefusal(result)) return { organizationId: null, refusal: result.message };
    return { organizationId: null, apiKeySent: readApiKey(headers) !== null };
  };
}

/** Whether the adapter passed a fetch `Request` (from any realm or polyfill). */
function isRequest(req: DocevalsContextRequest['req']): req is Request {
  return typeof req.url === 'string' && typeof (req as Request).clone === 'function' && typeof (req.headers as Headers).get === 'function';
}

/**
 * A body-less `Request` for `authenticate`, with the URL and method of the request the adapter passed (a node
 * request's URL is a path: the `Host` header gives its origin) and `headers`.
 */
function toRequest(req: DocevalsContextRequest['req'], headers: Headers): Request {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${headers.get('host') ?? 'localhost'}`);
  } catch {
    url = new URL('http://localhost/');
  }
  const method = req.method && /^[A-Za-z]+$/.test(req.method) && !/^(CONNECT|TRACE|TRACK)$/i.test(req.method) ? req.method : 'GET';
  return new Request(url, { method, headers });
}

/**
 * The headers with `Api-Key` set from `connectionParams.apiKey` when no header carries a key: an `EventSource` (tRPC's
 * `httpSubscriptionLink` in a browser) cannot send headers, so the client passes the key as a connection parameter.
 * A key in the headers wins; the given headers are never changed (a copy is).
 */
function withConnectionKey(headers: Headers, connectionParams: Record<string, string | undefined> | null | undefined): Headers {
  const key = connectionParams?.apiKey;
  if (typeof key !== 'string' || key === '' || readApiKey(headers) !== null) return headers;
  const copy = new Headers(headers);
  try {
    copy.set('api-key', key);
  } catch {
    return headers; // not a byte string: cannot be a key
  }
  return copy;
}

/**
 * A fetch `Headers` for a request's headers: returned as they are when they are one already (from any realm or
 * polyfill), copied from a node headers object otherwise.
 *
 * @example
 * toHeaders({ 'api-key': 'k_1' }).get('Api-Key'); // 'k_1'
 */
export function toHeaders(headers: Headers | NodeRequestHeaders): Headers {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).forEach === 'function') {
    return headers as Headers;
  }
  const result = new Headers();
  for (const [name, value] of Object.entries(headers as NodeRequestHeaders)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      try {
        result.append(name, item);
      } catch {
        // A name or value `Headers` refuses (not a byte string) cannot carry a key: leave it out.
      }
    }
  }
  return result;
}
