import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Docevals, type Storage } from '@docevals/core';
import { JOBS_SCOPE } from '@docevals/core/internal';
import type { DocevalsMetrics } from './metrics.js';
import { withTimeout } from './metrics.js';

/** How long a readiness check waits for the storage or the queue. */
export const READY_TIMEOUT_MS = 1_000;

export interface ReadinessOptions {
  /** The store, read once per check (one `jobs` page of one record). */
  storage: Storage;
  /** In queue mode: the service whose job runner must answer (its queue's counts). */
  queue?: Docevals;
  /** True once the process is shutting down. */
  closing: () => boolean;
}

export interface Readiness {
  ready: boolean;
  checks: { storage: 'ok' | 'unreachable'; queue?: 'ok' | 'unreachable'; shutting_down?: true };
}

/**
 * Whether this process should get traffic: not shutting down, its storage answers a read within a second, and in
 * queue mode its queue answers too. Both are asked at once, so an answer takes a second at most.
 */
export async function checkReadiness(options: ReadinessOptions): Promise<Readiness> {
  const ping = async (work: () => Promise<unknown>) => {
    try {
      await withTimeout(work(), READY_TIMEOUT_MS);
      return 'ok' as const;
    } catch {
      return 'unreachable' as const;
    }
  };
  const [storage, queue] = await Promise.all([
    ping(() => options.storage.jobs.list(JOBS_SCOPE, { limit: 1, order: 'asc' })),
    options.queue ? ping(async () => (await options.queue!.jobStats()) ?? Promise.reject(new Error('no queue'))) : undefined,
  ]);
  const closing = options.closing();
  const checks: Readiness['checks'] = { storage, ...(queue ? { queue } : {}), ...(closing ? { shutting_down: true as const } : {}) };
  return { ready: !closing && storage === 'ok' && (queue === undefined || queue === 'ok'), checks };
}

export interface OperationsEndpointsOptions {
  metrics: DocevalsMetrics;
  readiness: () => Promise<Readiness>;
  /**
   * `DOCEVALS_METRICS_TOKEN`: `/metrics` answers only with `Authorization: Bearer <token>`. Unset: `/metrics` is
   * served only where `open` (the separate metrics address), and is a 404 elsewhere.
   */
  token?: string;
  /** This is the separate metrics address: `/metrics` needs no token unless one is set. */
  open?: boolean;
}

/**
 * `GET /health/live` (200 while the process answers), `GET /health/ready` (200, or 503 with what is not ready) and
 * `GET /metrics` (Prometheus text, behind its own token or address, never a tenant's key). Returns false for any
 * other path, which the caller then serves.
 */
export function serveOperationsEndpoint(req: IncomingMessage, res: ServerResponse, options: OperationsEndpointsOptions): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/health/live' && path !== '/health/ready' && path !== '/metrics') return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    json(res, 405, { error: { code: 'method_not_allowed', message: 'This path accepts GET, HEAD only.' } }, { allow: 'GET, HEAD' });
    return true;
  }
  if (path === '/health/live') {
    json(res, 200, { status: 'ok' });
    return true;
  }
  if (path === '/health/ready') {
    options.readiness().then(
      (state) => json(res, state.ready ? 200 : 503, { status: state.ready ? 'ready' : 'not_ready', checks: state.checks }),
      () => json(res, 503, { status: 'not_ready', checks: {} }),
    );
    return true;
  }
  if (!options.token && !options.open) {
    json(res, 404, { error: { code: 'not_found', message: 'No endpoint at GET /metrics (set DOCEVALS_METRICS_TOKEN or DOCEVALS_METRICS_PORT).' } });
    return true;
  }
  if (options.token && !bearerMatches(req.headers.authorization, options.token)) {
    json(res, 401, { error: { code: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <DOCEVALS_METRICS_TOKEN>.' } }, { 'www-authenticate': 'Bearer realm="metrics"' });
    return true;
  }
  options.metrics.text().then(
    ({ contentType, body }) => {
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
    (error: unknown) => json(res, 500, { error: { code: 'internal_error', message: error instanceof Error ? error.message : 'metrics failed' } }),
  );
  return true;
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!.trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * The separate metrics address (`DOCEVALS_METRICS_PORT` on `DOCEVALS_METRICS_HOST`): `/metrics` and the two probes,
 * nothing else. A worker has no other HTTP server.
 *
 * @example
 * const server = await listenOperations({ port: 9464, host: '127.0.0.1', metrics, readiness });
 */
export async function listenOperations(options: Omit<OperationsEndpointsOptions, 'open'> & { port: number; host: string }): Promise<Server> {
  const server = createServer((req, res) => {
    if (!serveOperationsEndpoint(req, res, { ...options, open: true })) {
      json(res, 404, { error: { code: 'not_found', message: 'This address serves /metrics, /health/live and /health/ready only.' } });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
