import { assertJsonContainersWithin, DEFAULT_BODY_TIMEOUT_MS, LIMITS, readBodyTextAtMost, type Authenticate, type BodyReadOptions, type Docevals } from '@docevals/core/internal';
import type { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { createDocevalsContext } from './create-docevals-context.js';
import { createDocevalsRouter } from './create-docevals-router.js';
import { formatDocevalsError } from './error-formatter.js';
import { docevalsErrorOf, toTRPCError } from './error-table.js';

export interface DocevalsFetchHandlerLimits {
  /** Largest request body, counted while it streams in (413 past it). @default 33_554_432 (32 MiB, as REST) */
  maxBodyBytes: number;
  /** Most calls in one batch (tRPC's `maxBatchSize`: 400 past it). @default LIMITS.maxBatchSize (16) */
  maxBatchSize: number;
  /**
   * Bytes (JSON) the answers of one batch may sum to; the calls past it answer 413 `payload_too_large`. `0`: none.
   * @default 33_554_432 (32 MiB)
   */
  maxBatchAnswerBytes: number;
  /** Milliseconds the whole body may take to arrive (408 `TIMEOUT` past it, as REST); `0`: no limit. @default 60_000 */
  bodyTimeoutMs: number;
  /**
   * Event streams one organization may hold open at once, these subscriptions and REST's streams of the same service
   * together (the service's one cap: `createDocevalsRouter`'s option); 429 past it; `0`: none. @default the service's (20)
   */
  maxEventStreamsPerOrganization: number;
}

export interface DocevalsFetchHandlerOptions {
  docevals: Docevals;
  /** The same function the REST handler takes. */
  authenticate: Authenticate;
  /** Where the router is mounted, e.g. `/trpc`. */
  endpoint: string;
  limits?: Partial<DocevalsFetchHandlerLimits>;
  /** Called with every failure answered with a 5xx: the place to log (the response never carries it). */
  onError?: (error: unknown) => void;
}

const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The docevals router as a fetch handler (`Request` in, `Response` out) that reads bodies the way the REST API does
 * (docs/spec/limits.md): a declared or streamed body over `maxBodyBytes` is a 413 `payload_too_large` (chunked
 * included), a body still arriving `bodyTimeoutMs` after reading began is a 408 `request_timeout`, bytes that are not UTF-8 are a 400 `bad_request` (never stored as U+FFFD), a body with more JSON objects
 * and arrays than `LIMITS.maxJsonContainersPerBody` is a 413 before it is parsed, and a batch of more than
 * `maxBatchSize` calls is a 400. Errors come in tRPC's shape: tRPC's code in `error.data.code`, the docevals code in
 * `error.data.docevalsCode`.
 *
 * @example
 * import { createDocevalsFetchHandler } from '@docevals/trpc';
 * const trpc = createDocevalsFetchHandler({ docevals, authenticate, endpoint: '/trpc' });
 * Bun.serve({ fetch: trpc }); // or route `/trpc/*` to it from Hono, Next.js, Deno, toNodeHandler(...)
 */
export function createDocevalsFetchHandler(options: DocevalsFetchHandlerOptions): (request: Request) => Promise<Response> {
  const maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxBatchSize = options.limits?.maxBatchSize ?? LIMITS.maxBatchSize;
  const body = { timeoutMs: options.limits?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS };
  const onError = options.onError ?? ((error: unknown) => console.error('[docevals/trpc]', error));
  const maxEventStreamsPerOrganization = options.limits?.maxEventStreamsPerOrganization;
  const router = createDocevalsRouter({ docevals: options.docevals, ...(maxEventStreamsPerOrganization === undefined ? {} : { maxEventStreamsPerOrganization }) });
  const createContext = createDocevalsContext({
    authenticate: options.authenticate,
    ...(options.limits?.maxBatchAnswerBytes !== undefined ? { maxBatchAnswerBytes: options.limits.maxBatchAnswerBytes } : {}),
  });

  return async (request) => {
    let req = request;
    if (request.body !== null) {
      let text: string;
      try {
        text = await readBodyText(request, maxBodyBytes, body);
        assertJsonContainersWithin(text);
      } catch (error) {
        return errorResponse(error);
      }
      const headers = new Headers(request.headers);
      headers.delete('content-length');
      headers.delete('transfer-encoding');
      req = new Request(request.url, { method: request.method, headers, body: text, signal: request.signal });
    }
    return fetchRequestHandler({
      endpoint: options.endpoint,
      req,
      router,
      createContext,
      maxBatchSize,
      responseMeta: ({ errors }) => retryAfterMeta(errors),
      onError: ({ error }) => {
        if (getHTTPStatusCodeFromError(error) >= 500) onError(error.cause ?? error);
      },
    });
  };
}

/** A 429's `Retry-After` (RFC 9110 10.2.3), the longest wait of the call's `rate_limited` errors. */
function retryAfterMeta(errors: readonly TRPCError[]): { headers?: Record<string, string> } {
  let seconds: number | undefined;
  for (const error of errors) {
    const cause = docevalsErrorOf(error);
    if (cause?.retry_after !== undefined) seconds = Math.max(seconds ?? 0, cause.retry_after);
  }
  return seconds === undefined ? {} : { headers: { 'retry-after': String(seconds) } };
}

/** The body as text: 413 as soon as more than `maxBytes` are declared or have arrived, 400 when not UTF-8. */
async function readBodyText(request: Request, maxBytes: number, options: BodyReadOptions): Promise<string> {
  return readBodyTextAtMost(request, maxBytes, 'The request body is not valid UTF-8; send JSON encoded as UTF-8.', options);
}

/** A refusal before tRPC runs, in the shape tRPC itself answers errors with (`{ error: { message, code, data } }`). */
function errorResponse(error: unknown): Response {
  const trpcError = toTRPCError(error);
  const httpStatus = getHTTPStatusCodeFromError(trpcError);
  const shape = formatDocevalsError({
    shape: { message: trpcError.message, code: TRPC_ERROR_CODES_BY_KEY[trpcError.code], data: { code: trpcError.code, httpStatus } },
    error: trpcError,
  });
  const headers: Record<string, string> = httpStatus === 413 || httpStatus === 408 ? { connection: 'close' } : {};
  return Response.json({ error: shape }, { status: httpStatus, headers });
}
