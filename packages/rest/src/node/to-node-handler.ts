import type { IncomingMessage, ServerResponse } from 'node:http';
import { DocevalsError, internalError } from '@docevals/core';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { RestHandler } from '../create-rest-handler.js';
import { errorResponse } from '../error-response.js';
import { stringifyJson } from './stringify-json.js';

/**
 * A node request as the frameworks hand it over: Express adds `originalUrl` (the URL before a mount path was cut
 * off) and `body` (when a body parser ran); Fastify's route gives `request.raw`, to which its parsed `request.body`
 * can be attached as `body`.
 */
export type NodeRequest = IncomingMessage & { body?: unknown; originalUrl?: string; rawBody?: unknown };

/** `(req, res, next?)`: a node `http` request listener and an Express middleware at once. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/**
 * Serves a fetch handler (from `createRestHandler`) on node `http`, Express and Fastify, through
 * `@hono/node-server`'s request listener, without replacing the global `Request` and `Response` of the process
 * (`overrideGlobalObjects: false`). Bodies stream into the handler, which enforces its own limit.
 *
 * A body a framework already read is used as it was parsed: a `req.body` object is serialized again (without
 * recursion, so depth is still the core's to refuse), a string or Buffer is taken as is. Mount it before body
 * parsers when you can: the handler then streams the body itself, with its limit and its error bodies.
 * Under Express `app.use('/api/docevals', handler)`, the handler sees the full URL (`originalUrl`), so pass the
 * same `basePath` to `createRestHandler`.
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(toNodeHandler(handler)).listen(3000);
 *
 * // Express: before express.json(), or after it (a parsed body is re-serialized)
 * app.use('/api/docevals', toNodeHandler(handler));
 *
 * // Fastify: let the stream through untouched, then hand the raw request and response over
 * fastify.register(async (scope) => {
 *   scope.removeAllContentTypeParsers();
 *   scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
 *   scope.all('/api/docevals/*', (request, reply) => {
 *     reply.hijack();
 *     nodeHandler(request.raw, reply.raw);
 *   });
 * });
 */
export function toNodeHandler(handler: RestHandler): NodeHandler {
  const listener = getRequestListener((request, env) => handler(request, { nodeRequest: env.incoming }), {
    overrideGlobalObjects: false,
    errorHandler: (error) =>
      errorResponse(
        error instanceof RequestError
          ? new DocevalsError('bad_request', `The request could not be read: ${error.message}.`)
          : error,
      ),
  });

  return (req, res, next) => {
    const incoming = req as NodeRequest;
    adoptParsedBody(incoming);
    // Express cuts the mount path off `req.url`; the handler routes on the full path. node-server reads the URL
    // synchronously when the listener starts, so the original is restored right after.
    const url = incoming.url;
    if (typeof incoming.originalUrl === 'string') incoming.url = incoming.originalUrl;
    let served: Promise<void>;
    try {
      served = listener(incoming, res);
    } finally {
      incoming.url = url;
    }
    served.catch((error: unknown) => {
      if (next) return next(error);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errorResponseBody()));
      } else {
        res.destroy(error instanceof Error ? error : undefined);
      }
    });
  };
}

function errorResponseBody() {
  return internalError().toJSON();
}

/**
 * When a framework has read the body already, hands its result to node-server as `rawBody` (which node-server
 * uses instead of the consumed stream), and drops the headers that described the bytes on the wire: parsers
 * decode the content coding, and a re-serialized body has another length.
 */
function adoptParsedBody(req: NodeRequest): void {
  // Not read yet: the stream still holds the body (a `req.body` default such as Express 4's `{}` is not it).
  if (!req.readableDidRead && !req.readableEnded) return;
  if (!(req.rawBody instanceof Buffer)) req.rawBody = bytesOf(req.body); // else: the host kept the bytes
  const stale = ['content-encoding', 'content-length'];
  req.rawHeaders = withoutHeaders(req.rawHeaders, stale);
  for (const name of stale) delete req.headers[name]; // node-server reads `headers` first, `rawHeaders` after
}

function bytesOf(body: unknown): Buffer {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.from(stringifyJson(body), 'utf8');
}

function withoutHeaders(rawHeaders: string[], names: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!names.includes(rawHeaders[i]!.toLowerCase())) kept.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return kept;
}
