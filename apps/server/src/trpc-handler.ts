import type { Authenticate, Docevals } from '@docevals/core';
import { createDocevalsFetchHandler } from '@docevals/trpc';

/**
 * The docevals tRPC router as a fetch handler at `endpoint`, with the same keys and the same body rules as the REST
 * API: `@docevals/trpc`'s `createDocevalsFetchHandler` answers 413 for a body over `maxBodyBytes` (declared or
 * chunked), 400 for bytes that are not UTF-8, and caps batches at `LIMITS.maxBatchSize` calls.
 *
 * @example
 * const trpc = createTrpcHandler({ docevals, authenticate, endpoint: '/trpc', maxBodyBytes: 32 * 1024 * 1024 });
 */
export function createTrpcHandler(options: {
  docevals: Docevals;
  authenticate: Authenticate;
  endpoint: string;
  maxBodyBytes: number;
  bodyTimeoutMs?: number;
  onError?: (error: unknown) => void;
}): (request: Request) => Promise<Response> {
  return createDocevalsFetchHandler({
    docevals: options.docevals,
    authenticate: options.authenticate,
    endpoint: options.endpoint,
    limits: { maxBodyBytes: options.maxBodyBytes, ...(options.bodyTimeoutMs !== undefined ? { bodyTimeoutMs: options.bodyTimeoutMs } : {}) },
    ...(options.onError ? { onError: options.onError } : {}),
  });
}
