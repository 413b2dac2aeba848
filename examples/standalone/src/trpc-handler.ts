import type { Authenticate, Docevals } from '@docevals/core';
import { createDocevalsContext, createDocevalsRouter } from '@docevals/trpc';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';

/**
 * The docevals tRPC router as a fetch handler at `endpoint`, with the same keys as the REST API. tRPC's fetch
 * adapter reads bodies whole, so the body is cut off at `maxBodyBytes` while it streams (tRPC then answers with
 * its own parse error), and a declared Content-Length over it is refused up front with a 413.
 *
 * @example
 * const trpc = createTrpcHandler({ docevals, authenticate, endpoint: '/trpc', maxBodyBytes: 32 * 1024 * 1024 });
 */
export function createTrpcHandler(options: {
  docevals: Docevals;
  authenticate: Authenticate;
  endpoint: string;
  maxBodyBytes: number;
}): (request: Request) => Promise<Response> {
  const router = createDocevalsRouter({ docevals: options.docevals });
  const createContext = createDocevalsContext({ authenticate: options.authenticate });
  return async (request) => {
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > options.maxBodyBytes) {
      // tRPC's own error shape (JSON-RPC code -32013 is PAYLOAD_TOO_LARGE), so a tRPC client sees `data.code`
      // (tRPC's key) and `data.docevalsCode` as the router's formatter would have sent them.
      return Response.json(
        {
          error: {
            message: `The request body is larger than ${options.maxBodyBytes} bytes.`,
            code: -32013,
            data: { code: 'PAYLOAD_TOO_LARGE', docevalsCode: 'payload_too_large', httpStatus: 413 },
          },
        },
        { status: 413, headers: { connection: 'close' } },
      );
    }
    return fetchRequestHandler({
      endpoint: options.endpoint,
      req: limitBody(request, options.maxBodyBytes),
      router,
      createContext,
    });
  };
}

function limitBody(request: Request, maxBytes: number): Request {
  if (request.body === null) return request;
  let seen = 0;
  const limited = request.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(new Error(`The request body is larger than ${maxBytes} bytes.`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: limited,
    signal: request.signal,
    duplex: 'half',
  } as RequestInit);
}
