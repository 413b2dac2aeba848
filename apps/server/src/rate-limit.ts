import { createHash } from 'node:crypto';
import { DocevalsError, readApiKey } from '@docevals/core';
import { errorResponse } from '@docevals/rest';
import { formatDocevalsError, toTRPCError } from '@docevals/trpc';
import type { Redis } from 'ioredis';
import type { StandaloneConfig } from './config.js';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** `DOCEVALS_RATE_LIMIT` / `DOCEVALS_RATE_BURST`: requests per second per API key, and a burst allowance. */
export interface RateLimitSettings {
  /** Requests per second each key may send (the bucket's refill). */
  perSecond: number;
  /** Requests a key may send beyond `perSecond` within 10 seconds (the bucket's spare tokens); 0: none. */
  burst: number;
}

/** What the limiter says about one request: a 429 to answer, or the `RateLimit-*` headers of a request let through. */
export type RateLimitDecision = { refused: Response } | { headers: Record<string, string> } | null;

const BURST_WINDOW_SECONDS = 10;
/** JSON-RPC code of tRPC's TOO_MANY_REQUESTS. */
const TRPC_TOO_MANY_REQUESTS = -32029;

/**
 * A per-key rate limit over rate-limiter-flexible (a token bucket in its bursty form: `perSecond` steady plus `burst`
 * spare requests per 10 s), in this process's memory or, given a Redis client, in Redis so that every server of the
 * fleet shares one budget per key. Keys are stored hashed. A request without a key is not counted (it gets its 401).
 * Refused: 429 `rate_limited` with `Retry-After`, in the shape of the transport it was sent to (REST or tRPC).
 *
 * @example
 * const limit = createRateLimit({ perSecond: 10, burst: 0 }, { redis, prefix: 'docevals:' });
 * const decision = await limit(request, 'rest');
 */
export function createRateLimit(
  settings: RateLimitSettings,
  store: { redis?: Redis; prefix?: string } = {},
): (request: Request, transport: 'rest' | 'trpc') => Promise<RateLimitDecision> {
  const make = (keyPrefix: string, points: number, duration: number) =>
    store.redis
      ? new RateLimiterRedis({ storeClient: store.redis, keyPrefix: `${store.prefix ?? 'docevals:'}${keyPrefix}`, points, duration })
      : new RateLimiterMemory({ keyPrefix, points, duration });
  const steady = make('rate', settings.perSecond, 1);
  const limiter = settings.burst > 0 ? new BurstyRateLimiter(steady, make('rate-burst', settings.burst, BURST_WINDOW_SECONDS)) : steady;
  const policy = `${settings.perSecond};w=1${settings.burst > 0 ? `, ${settings.burst};w=${BURST_WINDOW_SECONDS}` : ''}`;
  const headersOf = (res: RateLimiterRes) => ({
    'ratelimit-limit': String(settings.perSecond),
    'ratelimit-remaining': String(Math.max(0, res.remainingPoints)),
    'ratelimit-reset': String(Math.max(0, Math.ceil(res.msBeforeNext / 1000))),
    'ratelimit-policy': policy,
  });

  return async (request, transport) => {
    const key = readApiKey(request);
    if (!key) return null;
    const id = createHash('sha256').update(key).digest('base64url').slice(0, 22);
    try {
      return { headers: headersOf(await limiter.consume(id)) };
    } catch (rejection) {
      // Not a refusal: the store failed. The request goes on unlimited rather than every key being refused.
      if (!(rejection instanceof RateLimiterRes)) return null;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      const error = new DocevalsError('rate_limited', `Too many requests for this API key: at most ${settings.perSecond} a second. Retry in ${retryAfter} s.`, {
        retry_after: retryAfter,
      });
      const headers = { ...headersOf(rejection), 'retry-after': String(retryAfter) };
      return { refused: transport === 'rest' ? errorResponse(error, headers) : trpcRefusal(error, headers) };
    }
  };
}

/** The 429 in tRPC's error shape (`{ error: { message, code, data } }`), as the tRPC handler answers errors. */
function trpcRefusal(error: DocevalsError, headers: Record<string, string>): Response {
  const trpcError = toTRPCError(error);
  const shape = formatDocevalsError({
    shape: { message: trpcError.message, code: TRPC_TOO_MANY_REQUESTS, data: { code: trpcError.code, httpStatus: 429 } },
    error: trpcError,
  });
  return Response.json({ error: shape }, { status: 429, headers });
}

/**
 * The server's rate limit from its configuration: off when `DOCEVALS_RATE_LIMIT=0`; in Redis when `REDIS_URL` is set
 * (its own connection, closed by `close`), else in memory.
 */
export async function openRateLimit(config: Pick<StandaloneConfig, 'rateLimit' | 'redisUrl' | 'redisKeyPrefix'>) {
  if (!config.rateLimit) return null;
  let redis: Redis | undefined;
  if (config.redisUrl) {
    const { Redis: RedisClient } = await import('ioredis');
    redis = new RedisClient(config.redisUrl, { maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined); // a store failure lets requests through (createRateLimit); not a crash
  }
  return {
    limit: createRateLimit(config.rateLimit, { ...(redis ? { redis } : {}), prefix: config.redisKeyPrefix ?? 'docevals:' }),
    close: () => void redis?.disconnect(),
  };
}
