import { readApiKey, type Authenticate } from '@docevals/core';
import { toTRPCError } from './error-table.js';

/** The context of every docevals procedure: the caller's organization, null when no valid key came with the call. */
export interface DocevalsContext {
  organizationId: string | null;
  /** Whether the request carried an API key (`Api-Key` or `Authorization: Bearer`): words the 401 when it is refused. */
  apiKeySent?: boolean;
}

/** Node's `IncomingMessage.headers` (and Express's, Fastify's): lower-case names, repeated headers as arrays. */
export type NodeRequestHeaders = Record<string, string | string[] | undefined>;

/**
 * What the context helper reads from the options a tRPC adapter passes to `createContext`: the request's headers,
 * a fetch `Headers` (fetch adapter, Next.js app router) or a node headers object (standalone, Express, Fastify,
 * ws adapters).
 */
export interface DocevalsContextRequest {
  req: { headers: Headers | NodeRequestHeaders };
  /**
   * tRPC's call info: its `connectionParams` carry the key for a client that cannot send headers (a browser's
   * `EventSource` for `httpSubscriptionLink`, websockets): `{ apiKey: '<key>' }`, read when no header carries one,
   * and only for a subscription (`type: 'subscription'`): a query or mutation authenticates with its headers, so a
   * key in a URL (where `connectionParams` travel) never opens anything but an events stream.
   */
  info?: { type?: string; connectionParams?: Record<string, string | undefined> | null } | undefined;
}

export interface CreateDocevalsContextOptions {
  /**
   * Maps a request's headers to the caller's organization, or null: the same function the REST handler takes, so
   * both transports accept the same keys (`Api-Key: <key>` or `Authorization: Bearer <key>`).
   * `apiKeyAuthenticator({ keys })` from `@docevals/core` is a ready one.
   */
  authenticate: Authenticate;
}

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
  return async ({ req, info }) => {
    let organizationId: string | null;
    const headers = withConnectionKey(toHeaders(req.headers), info?.type === 'subscription' ? info.connectionParams : null);
    try {
      organizationId = await authenticate(headers);
    } catch (error) {
      throw toTRPCError(error);
    }
    if (typeof organizationId === 'string' && organizationId !== '') return { organizationId };
    return { organizationId: null, apiKeySent: readApiKey(headers) !== null };
  };
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
