import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { operations, type RestRoute } from '@docevals/core/internal';
import type { Logger } from './observability/logger.js';
import type { DocevalsMetrics } from './observability/metrics.js';
import { requestContext, type RequestInfo } from './observability/request-context.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** An `X-Request-Id` sent by a proxy is kept when it looks like an id; otherwise a new one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** `/iterations/{iteration_id}...` (not `/iterations/create`): the iteration a request reads or changes. */
const ITERATION_IN_PATH = /\/iterations\/(?!create(?:\/|$))([^/?]+)/;
/**
 * The REST routes of the stream operations (`GET /v1/evals/{evaluation_id}/iterations/{iteration_id}/events`), as
 * path patterns from the operations table: such a request is named by its stream whatever it ran before being
 * refused (the route reads the iteration first: a 404 or a 429 never opens the stream's span).
 */
const STREAM_ROUTES: ReadonlyArray<{ pattern: RegExp; operation: string }> = Object.entries(operations).flatMap(([operation, row]) => {
  const rest = (row as { rest?: RestRoute | readonly RestRoute[] }).rest;
  const routes: readonly RestRoute[] = rest === undefined ? [] : Array.isArray(rest) ? rest : [rest as RestRoute];
  return routes
    .filter((route) => route.sse)
    .map((route) => ({ pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`), operation }));
});

/** Probes and scrapes: logged at debug level, no span (a load balancer asks every few seconds). */
const QUIET = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

/**
 * Wraps a request listener so that each request gets an id (`X-Request-Id`, answered), a SERVER span (a child of the
 * caller's `traceparent`; named `<METHOD> <operation>` once the core has run the operation), its place in the request
 * metrics, and one log line once its response is done or abandoned: `POST /v1/evals 200 12.3ms` with `req_id`,
 * `method`, `path`, `status`, `duration_ms`, `operation`, `organization_id`, `iteration_id`, `trace_id`. The query
 * string is left out (it may carry filters a log has no business keeping), and so are headers and bodies.
 *
 * @example
 * createServer(observeRequests(listener, { logger, metrics }));
 */
export function observeRequests(listener: Listener, options: { logger: Logger; metrics: DocevalsMetrics }): Listener {
  const tracer = trace.getTracer('@docevals/server');
  const { logger, metrics } = options;
  return (req, res) => {
    const started = process.hrtime.bigint();
    const sent = req.headers['x-request-id'];
    const requestId = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    res.setHeader('x-request-id', requestId);
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0]!;
    const quiet = QUIET.has(path);
    const info: RequestInfo = { requestId, operations: [] };
    const iteration = ITERATION_IN_PATH.exec(path)?.[1];
    if (iteration) info.iterationId = decodeURIComponentSafe(iteration);
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = quiet
      ? undefined
      : tracer.startSpan(
          method,
          { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path, 'docevals.request_id': requestId } },
          parent,
        );
    res.once('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const aborted = !res.writableFinished;
      const operation = operationLabel(info.operations, path);
      metrics.observeRequest(operation, res.statusCode, ms / 1000, info.organization);
      let traceId: string | undefined;
      if (span) {
        span.updateName(`${method} ${operation}`);
        span.setAttribute('http.response.status_code', res.statusCode);
        span.setAttribute('docevals.operation', operation);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: String(res.statusCode) });
        traceId = span.spanContext().traceId;
        span.end();
      }
      const fields = {
        req_id: requestId,
        method,
        path,
        status: res.statusCode,
        duration_ms: Math.round(ms * 10) / 10,
        operation,
        ...(info.organization ? { organization_id: info.organization } : {}),
        ...(info.iterationId ? { iteration_id: info.iterationId } : {}),
        ...(traceId ? { trace_id: traceId } : {}),
        ...(aborted ? { aborted: true } : {}),
      };
      const line = `${method} ${path} ${aborted ? `${res.statusCode} (aborted)` : res.statusCode} ${ms.toFixed(1)}ms`;
      if (quiet) logger.debug(fields, line);
      else logger.info(fields, line);
    });
    const run = () => requestContext.run(info, () => listener(req, res));
    if (span) context.with(trace.setSpan(parent, span), run);
    else run();
  };
}

/**
 * The operation a request ran (the core's name, `evals.iterations.create`); a tRPC batch of several is `trpc.batch`;
 * a REST route that ran several is named by its last; a stream's REST route by its stream (`evals.iterations.events`,
 * answered, 404 or 429 alike: it reads the iteration first, then streams). A request that ran none (refused before, or not an API call) is named by where it went:
 * `rest`, `trpc`, `health`, `metrics`, `docs`, `web`. A bounded set of labels whatever the paths asked.
 */
export function operationLabel(ran: readonly string[], path: string): string {
  const stream = STREAM_ROUTES.find((route) => route.pattern.test(path));
  if (stream) return stream.operation;
  if (ran.length === 1) return ran[0]!;
  if (ran.length > 1) {
    if (new Set(ran).size === 1) return ran[0]!;
    return path === '/trpc' || path.startsWith('/trpc/') ? 'trpc.batch' : ran[ran.length - 1]!;
  }
  if (path === '/metrics') return 'metrics';
  if (path === '/health' || path.startsWith('/health/')) return 'health';
  if (path === '/trpc' || path.startsWith('/trpc/')) return 'trpc';
  if (path === '/v1' || path.startsWith('/v1/')) return 'rest';
  if (path === '/docs' || path.startsWith('/docs/')) return 'docs';
  return 'web';
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
