/**
 * The standalone server with no exporter configured (issue 32's overhead item): no span is recorded (no SDK, no
 * context manager), the metrics still get every figure from the metrics-only tracer, and the request log still
 * names each request's operation and gives the caller's trace id. Its own file: the process's telemetry is set up
 * once, here without an exporter (observability.test.ts sets up the SDK with an in-memory exporter).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStandaloneServer, type StandaloneServer } from '../src/app.js';
import { createLogger } from '../src/observability/logger.js';
import { exportsTraces } from '../src/observability/telemetry.js';
import { operationLabel } from '../src/request-log.js';
import { apiClient } from './support/api-client.js';
import { invoiceDocuments, invoiceModel, SCHEMA, until } from './support/jobs-support.js';

const KEY = 'metrics-only-key-7a21';
const METRICS_TOKEN = 'metrics-only-token-4c9e';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const cleanups: Array<() => Promise<unknown>> = [];
let app: StandaloneServer;
let url: string;
const logs: string[] = [];

beforeAll(async () => {
  const model = await invoiceModel(0);
  cleanups.push(() => model.fake.stop());
  const dataDir = await mkdtemp(join(tmpdir(), 'docevals-metrics-only-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  app = await createStandaloneServer(
    {
      DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DOCEVALS_API_KEYS: `${KEY}:org_metrics_only`,
      OPENAI_API_KEY: 'sk-metrics-only-secret',
      OPENAI_BASE_URL: model.fake.baseURL,
      DOCEVALS_METRICS_TOKEN: METRICS_TOKEN,
    },
    { log: () => {}, logger: createLogger({ pretty: false, write: (line) => logs.push(line) }) },
  );
  cleanups.push(() => app.close(100));
  url = await app.listen();
});
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const value = (text: string, name: string, labels: Record<string, string>) =>
  (parsePrometheusTextFormat(text).find((f) => f.name === name)?.metrics ?? [])
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))
    .reduce((sum, s) => sum + Number(s.value ?? s.count ?? 0), 0);
/** A histogram's count for the series whose labels include `labels` (read from the text lines). */
const count = (text: string, name: string, labels: Record<string, string>) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${name}_count{`) && Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
const scrape = async () => (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();

describe('no exporter configured: metrics without recorded spans', () => {
  it('records no span and keeps no context, yet every metric family moves after an iteration', async () => {
    expect(app.telemetry).toMatchObject({ exporting: false, recording: false });
    // No context manager: a span made active is not seen inside (nothing carries it through promises).
    const span = trace.getTracer('probe').startSpan('probe');
    expect(context.with(trace.setSpan(context.active(), span), () => trace.getActiveSpan())).toBeUndefined();
    span.end();

    const api = apiClient(url, KEY);
    const created = await api('POST', '/v1/evals', { name: 'metrics only', json_schema: SCHEMA, documents: invoiceDocuments(3), default_inference_settings: { model: 'gpt-4o-mini' } });
    expect(created.status).toBe(200);
    const evaluationId = created.body.id as string;
    const ran = await api('POST', `/v1/evals/${evaluationId}/iterations/create`, {});
    expect(ran.status).toBe(200);
    expect(ran.body.status).toBe('completed');

    const text = await scrape();
    expect(value(text, 'docevals_documents_total', { model: 'gpt-4o-mini', status: 'succeeded' })).toBe(3);
    expect(count(text, 'docevals_document_duration_seconds', { model: 'gpt-4o-mini' })).toBe(3);
    expect(count(text, 'docevals_extractor_call_duration_seconds', { provider: 'openai', model: 'gpt-4o-mini', outcome: 'ok' })).toBe(3);
    expect(value(text, 'docevals_extractor_tokens_total', { provider: 'openai', model: 'gpt-4o-mini', type: 'input' })).toBe(300);
    expect(value(text, 'docevals_extractor_cost_total', { provider: 'openai', model: 'gpt-4o-mini', currency: 'USD' })).toBeGreaterThan(0);
    expect(count(text, 'docevals_storage_operation_duration_seconds', { collection: 'predictions', outcome: 'ok' })).toBeGreaterThan(0);
    expect(value(text, 'docevals_iterations_total', { status: 'started', model: 'gpt-4o-mini' })).toBe(1);
    expect(value(text, 'docevals_iterations_total', { status: 'completed', model: 'gpt-4o-mini' })).toBe(1);
    expect(value(text, 'docevals_http_requests_total', { operation: 'evals.create', status: '200' })).toBe(1);
    expect(value(text, 'docevals_http_requests_total', { operation: 'evals.iterations.create', status: '200' })).toBe(1);
  });

  it("names each request's operation (a stream refused, a tRPC batch, a refused REST call) and logs the caller's trace id", async () => {
    const api = apiClient(url, KEY);
    const evaluationId = (await api('POST', '/v1/evals', { name: 'labels', json_schema: SCHEMA, documents: invoiceDocuments(1) })).body.id as string;
    // An event stream of an unknown iteration: a 404 from the route's first read, named by the stream.
    const missing = await fetch(`${url}/v1/evals/${evaluationId}/iterations/eval_iter_missing/events`, {
      headers: { 'api-key': KEY, traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
    });
    expect(missing.status).toBe(404);
    // A tRPC batch of two operations, and a REST call refused before any operation ran.
    const input = encodeURIComponent(JSON.stringify({ 0: {}, 1: { evaluation_id: evaluationId } }));
    const batch = await fetch(`${url}/trpc/evals.list,evals.get?batch=1&input=${input}`, { headers: { 'api-key': KEY } });
    expect(batch.status).toBe(200);
    expect((await fetch(`${url}/v1/evals`)).status).toBe(401);

    const text = await scrape();
    expect(value(text, 'docevals_http_requests_total', { operation: 'evals.iterations.events', status: '404' })).toBe(1);
    expect(value(text, 'docevals_http_requests_total', { operation: 'evals.iterations.getSummary', status: '404' })).toBe(0);
    expect(value(text, 'docevals_http_requests_total', { operation: 'trpc.batch', status: '200' })).toBe(1);
    expect(value(text, 'docevals_http_requests_total', { operation: 'rest', status: '401' })).toBe(1);
    await until(() => logs.some((l) => l.includes('eval_iter_missing')), 5_000, "the stream request's log line");
    const line = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => typeof r.path === 'string' && r.path.endsWith('/eval_iter_missing/events'))!;
    expect(line).toMatchObject({ status: 404, operation: 'evals.iterations.events', trace_id: TRACE_ID });
  });

  it('names a stream route by its stream whatever it ran first (a 429 reads the iteration, then is refused)', () => {
    const path = '/v1/evals/eval_1/iterations/eval_iter_1/events';
    expect(operationLabel(['evals.iterations.getSummary'], path)).toBe('evals.iterations.events');
    expect(operationLabel([], path)).toBe('evals.iterations.events');
    expect(operationLabel(['evals.iterations.getSummary', 'evals.iterations.events'], path)).toBe('evals.iterations.events');
    // Other routes keep their rule: the last of several on REST, the batch on tRPC.
    expect(operationLabel(['evals.iterations.locate', 'evals.iterations.get'], '/v1/evals/eval_1/iterations/eval_iter_1')).toBe('evals.iterations.get');
    expect(operationLabel(['evals.list', 'evals.get'], '/trpc/evals.list,evals.get')).toBe('trpc.batch');
  });
});

describe('promises of docs/operations.md', () => {
  it('refuses to start when DOCEVALS_METRICS_TOKEN is one of the API keys', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'docevals-metrics-token-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    await expect(
      createStandaloneServer(
        { DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!, PORT: '0', DATA_DIR: dataDir, DOCEVALS_API_KEYS: `${KEY}:org_a`, DOCEVALS_METRICS_TOKEN: KEY },
        { log: () => {}, logger: createLogger({ pretty: false, write: () => {} }) },
      ),
    ).rejects.toThrow('DOCEVALS_METRICS_TOKEN must not be one of the API keys.');
  });

  it('censors key, token, body and content fields in log lines, at the top and one level down', () => {
    const lines: string[] = [];
    const logger = createLogger({ pretty: false, write: (line) => lines.push(line) });
    logger.info({ api_key: 'sk-top', authorization: 'Bearer tok', request: { token: 'tk-nested', content: 'Invoice 42', url: 'data:text/plain;base64,SW52' }, operation: 'evals.create' }, 'line');
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record).toMatchObject({
      api_key: '[redacted]',
      authorization: '[redacted]',
      request: { token: '[redacted]', content: '[redacted]', url: '[redacted]' },
      operation: 'evals.create',
    });
    for (const secret of ['sk-top', 'Bearer tok', 'tk-nested', 'Invoice 42', 'SW52']) expect(lines[0]).not.toContain(secret);
  });
});

describe('which environment exports traces (a worker with no metrics address installs a tracer only then)', () => {
  it('an OTLP endpoint, general or for traces, unless the exporter is none; a blank one is none', () => {
    expect(exportsTraces({})).toBe(false);
    expect(exportsTraces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(exportsTraces({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(exportsTraces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(exportsTraces({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
  });
});
