/**
 * Observability (issue 32) over real processes: the standalone API server in this process (its spans in the
 * OpenTelemetry SDK's in-memory exporter) in queue mode with a worker process (`src/worker.ts`, its spans sent by the
 * OTLP/HTTP exporter to a loopback collector here, as OTEL_EXPORTER_OTLP_ENDPOINT configures it), a real
 * redis-server, a loopback OpenAI-compatible model. Then the Prometheus metrics of both, parsed by a text-format parser,
 * the JSON log lines, and the probes with a Redis that stops and comes back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createStandaloneServer } from '../src/app.js';
import { createLogger } from '../src/observability/logger.js';
import { startTelemetry } from '../src/observability/telemetry.js';
import { startRedisServer } from '../../../test-support/redis-global-setup.js';
import { apiClient } from './support/api-client.js';
import { invoiceDocuments, invoiceModel, readSse, SCHEMA, until } from './support/jobs-support.js';
import { spawnScript } from './support/processes.js';

const KEY = 'observe-key-5f1b2c';
const METRICS_TOKEN = 'metrics-token-9d3e';
const memory = new InMemorySpanExporter();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(async () => {
  // This process's provider, as the server sets it up, with the in-memory exporter beside the metrics.
  await startTelemetry({}, { serviceName: 'docevals-server', spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
});

/** A loopback OTLP/HTTP collector: the spans of every JSON export request it received. */
async function otlpCollector() {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const payload = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans };
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number; doubleValue?: number; arrayValue?: unknown } }>;
}
const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  return value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue);
};

/** Every sample of a metric family: labels and value (a histogram's count and buckets). */
function samples(text: string, name: string) {
  const family = parsePrometheusTextFormat(text).find((f) => f.name === name);
  return family?.metrics ?? [];
}
const valueOf = (text: string, name: string, labels: Record<string, string>) =>
  samples(text, name)
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))
    .reduce((sum, s) => sum + Number(s.value ?? s.count ?? 0), 0);

/**
 * A labelled histogram's buckets and count, read from the text lines (parse-prometheus-text-format 1.1.1 folds the
 * series of a histogram with labels together, so it serves for counters, gauges and the format's validity only).
 */
function histogram(text: string, name: string, labels: Record<string, string>) {
  const matches = (line: string) => Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
  const buckets: Record<string, number> = {};
  let count = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}_bucket{`) && matches(line)) buckets[/le="([^"]+)"/.exec(line)![1]!] = Number(line.split(' ').pop());
    if (line.startsWith(`${name}_count{`) && matches(line)) count += Number(line.split(' ').pop());
  }
  return { buckets, count };
}

async function scrape(url: string, token?: string): Promise<string> {
  const response = await fetch(`${url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

describe('traces, metrics and logs across an API server and a worker process', () => {
  it('one background iteration of 3 documents is one trace: request -> iteration -> 3 documents -> 3 extractor calls', async () => {
    const model = await invoiceModel(20);
    cleanups.push(() => model.fake.stop());
    const collector = await otlpCollector();
    const dataDir = await mkdtemp(join(tmpdir(), 'docevals-observe-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const organization = `tenant_${tag}`;
    const env = {
      DATA_DIR: dataDir,
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: `observe${tag}:`,
      DOCEVALS_API_KEYS: `${KEY}:${organization}`,
      OPENAI_API_KEY: 'sk-test-secret',
      OPENAI_BASE_URL: model.fake.baseURL,
      DOCEVALS_QUEUE: 'bullmq',
      DOCEVALS_METRICS_TOKEN: METRICS_TOKEN,
    };
    const logs: string[] = [];
    const app = await createStandaloneServer({ DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!, ...env, PORT: '0', HOST: '127.0.0.1' }, {
      log: () => {},
      logger: createLogger({ pretty: false, write: (line) => logs.push(line) }),
    });
    cleanups.push(() => app.close(100));
    const url = await app.listen();
    const worker = await spawnScript(
      'src/worker.ts',
      { ...env, DOCEVALS_METRICS_PORT: '0', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100', LOG_FORMAT: 'json' },
      /metrics and probes: (http:\/\/127\.0\.0\.1:\d+)\/metrics/,
    );
    cleanups.push(worker.kill);
    const workerMetrics = worker.ready[1]!;
    const api = apiClient(url, KEY);

    const created = await api('POST', '/v1/evals', { name: 'observed', json_schema: SCHEMA, documents: invoiceDocuments(3), default_inference_settings: { model: 'gpt-4o-mini' } });
    expect(created.status).toBe(200);
    const evaluationId = created.body.id as string;
    memory.reset();
    const started = await fetch(`${url}/v1/evals/${evaluationId}/iterations/create`, {
      method: 'POST',
      headers: { 'api-key': KEY, 'content-type': 'application/json', 'x-request-id': `req-${tag}` },
      body: JSON.stringify({ background: true }),
    });
    expect(started.status).toBe(202);
    expect(started.headers.get('x-request-id')).toBe(`req-${tag}`);
    const iterationId = ((await started.json()) as { id: string }).id;
    await until(async () => (await api('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}?view=summary`)).body.status === 'completed', 60_000, 'the iteration to complete');
    await until(() => collector.spans.filter((s) => s.name === 'chat gpt-4o-mini').length >= 3, 20_000, "the worker's spans");

    // The iteration's event stream (over by now: its final event only), read over SSE: an operation span too.
    const streamed: string[] = [];
    for await (const event of readSse(`${url}/v1/evals/${evaluationId}/iterations/${iterationId}/events`, KEY)) streamed.push(event.event);
    expect(streamed).toEqual(['completed']);
    await until(() => memory.getFinishedSpans().some((s) => s.name === 'GET evals.iterations.events'), 5_000, "the stream's request span");

    // The API process: the request's SERVER span, the operation's span, the iteration's span, one trace.
    const local = memory.getFinishedSpans();
    const request = local.find((s) => s.name === 'POST evals.iterations.create')!;
    expect(request).toBeDefined();
    const traceId = request.spanContext().traceId;
    const child = (parent: ReadableSpan, name: string) =>
      local.find((s) => s.name === name && s.parentSpanContext?.spanId === parent.spanContext().spanId);
    const operation = child(request, 'docevals evals.iterations.create')!;
    expect(operation).toBeDefined();
    const iteration = child(operation, 'docevals iteration')!;
    expect(iteration).toBeDefined();
    expect(iteration.attributes['docevals.iteration_id']).toBe(iterationId);
    expect(iteration.attributes['gen_ai.request.model']).toBe('gpt-4o-mini');
    expect(iteration.spanContext().traceId).toBe(traceId);

    const streamRequest = local.find((s) => s.name === 'GET evals.iterations.events')!;
    const stream = child(streamRequest, 'docevals evals.iterations.events')!;
    expect(stream).toBeDefined();
    expect(stream.attributes['docevals.stream.items']).toBe(1);
    expect(stream.attributes['docevals.operation']).toBe('evals.iterations.events');
    // The stream's storage reads are its children.
    expect(local.some((s) => s.parentSpanContext?.spanId === stream.spanContext().spanId && s.attributes['db.operation.name'] !== undefined)).toBe(true);

    // The worker process: three documents, children of the iteration's span across the queue; a call in each.
    const documents = collector.spans.filter((s) => s.name === 'docevals document' && s.traceId === traceId);
    expect(documents).toHaveLength(3);
    for (const document of documents) expect(document.parentSpanId).toBe(iteration.spanContext().spanId);
    const calls = collector.spans.filter((s) => s.name === 'chat gpt-4o-mini' && s.traceId === traceId);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.parentSpanId))).toEqual(new Set(documents.map((d) => d.spanId)));
    for (const call of calls) {
      expect(attribute(call, 'gen_ai.request.model')).toBe('gpt-4o-mini');
      // The provider the model was routed to (the conventions' name), not the routing extractor's own name.
      expect(attribute(call, 'gen_ai.provider.name')).toBe('openai');
      expect(attribute(call, 'gen_ai.system')).toBe('openai');
      expect(attribute(call, 'gen_ai.usage.input_tokens')).toBe(100);
      expect(attribute(call, 'gen_ai.usage.output_tokens')).toBe(20);
      expect(attribute(call, 'docevals.cost.value')).toBeGreaterThan(0);
      expect(attribute(call, 'docevals.cost.currency')).toBe('USD');
    }
    // The outcome, recorded by the worker that recorded the last document: in the trace, once.
    const ends = collector.spans.filter((s) => s.name === 'docevals iteration end' && attribute(s, 'docevals.iteration_id') === iterationId);
    expect(ends).toHaveLength(1);
    expect(ends[0]!.traceId).toBe(traceId);
    expect(attribute(ends[0]!, 'docevals.iteration.status')).toBe('completed');
    // The worker's storage calls (the plan's, the documents', the outcome's) are all in the trace: none starts a
    // trace of its own.
    const storageSpans = collector.spans.filter((s) => attribute(s, 'db.operation.name') !== undefined);
    expect(storageSpans.length).toBeGreaterThan(0);
    expect(storageSpans.filter((s) => s.traceId !== traceId).map((s) => s.name)).toEqual([]);

    // Metrics: the worker extracted, the API server answered; both parse as Prometheus text.
    const workerText = await scrape(workerMetrics, METRICS_TOKEN);
    expect(valueOf(workerText, 'docevals_documents_total', { model: 'gpt-4o-mini', status: 'succeeded' })).toBe(3);
    expect(valueOf(workerText, 'docevals_extractor_tokens_total', { provider: 'openai', model: 'gpt-4o-mini', type: 'input' })).toBe(300);
    expect(valueOf(workerText, 'docevals_extractor_tokens_total', { provider: 'openai', model: 'gpt-4o-mini', type: 'output' })).toBe(60);
    expect(valueOf(workerText, 'docevals_extractor_cost_total', { provider: 'openai', model: 'gpt-4o-mini', currency: 'USD' })).toBeGreaterThan(0);
    const callHistogram = histogram(workerText, 'docevals_extractor_call_duration_seconds', { provider: 'openai', model: 'gpt-4o-mini', outcome: 'ok' });
    expect(callHistogram.count).toBe(3);
    // Buckets from 5 ms to 60 s: none of these 20 ms calls under 10 ms, every one under 60 s.
    expect(Object.keys(callHistogram.buckets).sort()).toEqual(['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '20', '30', '60', '+Inf'].sort());
    expect(callHistogram.buckets['0.01']).toBe(0);
    expect(callHistogram.buckets['60']).toBe(3);
    expect(histogram(workerText, 'docevals_queue_wait_seconds', { model: 'gpt-4o-mini' }).count).toBeGreaterThanOrEqual(1);
    expect(histogram(workerText, 'docevals_storage_operation_duration_seconds', { collection: 'predictions', outcome: 'ok' }).count).toBeGreaterThan(0);
    // Iterations by status: started where started (the API server), completed where the outcome was recorded.
    expect(valueOf(workerText, 'docevals_iterations_total', { status: 'completed', model: 'gpt-4o-mini' })).toBe(1);
    expect(valueOf(workerText, 'docevals_iterations_total', { status: 'started' })).toBe(0);
    expect(samples(workerText, 'nodejs_eventloop_lag_seconds')).toHaveLength(1);
    expect(samples(workerText, 'nodejs_heap_size_used_bytes')).toHaveLength(1);

    // The API server's /metrics: its own token, never a tenant's key.
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(401);
    const apiText = await scrape(url, METRICS_TOKEN);
    expect(valueOf(apiText, 'docevals_http_requests_total', { operation: 'evals.iterations.create', status: '202' })).toBe(1);
    expect(valueOf(apiText, 'docevals_http_requests_total', { operation: 'evals.create', status: '200' })).toBe(1);
    expect(valueOf(apiText, 'docevals_http_requests_total', { operation: 'evals.iterations.events', status: '200' })).toBe(1);
    expect(valueOf(apiText, 'docevals_iterations_total', { status: 'started', model: 'gpt-4o-mini' })).toBe(1);
    expect(valueOf(apiText, 'docevals_iterations_total', { status: 'completed' })).toBe(0);
    expect(samples(apiText, 'docevals_queue_workers')[0]?.value).toBe('1');
    for (const text of [apiText, workerText]) {
      for (const family of parsePrometheusTextFormat(text)) {
        for (const sample of family.metrics) expect(Object.values(sample.labels ?? {})).not.toContain(organization);
      }
    }

    // Logs: JSON lines with the request's fields; neither a key nor a document's content anywhere.
    const records = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const line = records.find((r) => r.req_id === `req-${tag}`)!;
    expect(line).toMatchObject({ level: 'info', operation: 'evals.iterations.create', organization_id: organization, iteration_id: iterationId, status: 202, trace_id: traceId });
    expect(typeof line.time).toBe('string');
    const iterationRead = records.find((r) => typeof r.path === 'string' && (r.path as string).endsWith(`/iterations/${iterationId}`))!;
    expect(iterationRead).toMatchObject({ iteration_id: iterationId, operation: 'evals.iterations.get' });
    const workerLines = worker.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(workerLines.filter((r) => r.outcome === 'succeeded' && r.iteration_id === iterationId && r.trace_id === traceId)).toHaveLength(3);
    const everything = `${logs.join('\n')}\n${worker.output()}`;
    const content = invoiceDocuments(3)[0]!.mime_data.url;
    for (const secret of [KEY, 'sk-test-secret', METRICS_TOKEN, 'Invoice number: INV-0', content.slice(content.indexOf(',') + 1)]) {
      expect(everything).not.toContain(secret);
    }
  }, 120_000);
});

describe('traces and metrics of the in-process runner', () => {
  it("an iteration that waits for the runner's slot keeps its trace; outcomes are counted by status (completed, cancelled, failed)", async () => {
    const model = await invoiceModel(150);
    cleanups.push(() => model.fake.stop());
    const dataDir = await mkdtemp(join(tmpdir(), 'docevals-observe-local-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const app = await createStandaloneServer(
      {
        DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DOCEVALS_API_KEYS: `${KEY}:org_local,${KEY}-other:org_other`,
        OPENAI_API_KEY: 'sk-test-secret',
        OPENAI_BASE_URL: model.fake.baseURL,
        DOCEVALS_METRICS_TOKEN: METRICS_TOKEN,
        // One iteration at a time per organization: the second waits for the first to end, the third is cancelled
        // while it waits. One call at a time in the server: the other organization's iteration runs beside the first,
        // and their documents take turns in the one fair slot.
        DOCEVALS_MAX_RUNNING_ITERATIONS: '1',
        DOCEVALS_CONCURRENCY: '1',
      },
      { log: () => {}, logger: createLogger({ pretty: false, write: () => {} }) },
    );
    cleanups.push(() => app.close(100));
    const url = await app.listen();
    const api = apiClient(url, KEY);
    const created = await api('POST', '/v1/evals', { name: 'local', json_schema: SCHEMA, documents: invoiceDocuments(3), default_inference_settings: { model: 'gpt-4o-mini' } });
    const evaluationId = created.body.id as string;
    const other = apiClient(url, `${KEY}-other`);
    const otherEvaluation = (await other('POST', '/v1/evals', { name: 'other', json_schema: SCHEMA, documents: invoiceDocuments(3), default_inference_settings: { model: 'gpt-4o-mini' } })).body.id as string;
    const count = (text: string, status: string) => valueOf(text, 'docevals_iterations_total', { status, model: 'gpt-4o-mini' });
    const before = await scrape(url, METRICS_TOKEN);
    memory.reset();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api('POST', `/v1/evals/${evaluationId}/iterations/create`, { background: true })).body.id as string);
    const otherId = (await other('POST', `/v1/evals/${otherEvaluation}/iterations/create`, { background: true })).body.id as string;
    const cancelled = await api('POST', `/v1/evals/${evaluationId}/iterations/${ids[2]}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    const status = async (id: string) => (await api('GET', `/v1/evals/${evaluationId}/iterations/${id}?view=summary`)).body.status as string;
    await until(async () => (await status(ids[0]!)) === 'completed' && (await status(ids[1]!)) === 'completed', 30_000, 'both iterations to complete');
    await until(async () => (await other('GET', `/v1/evals/${otherEvaluation}/iterations/${otherId}?view=summary`)).body.status === 'completed', 30_000, "the other organization's iteration");

    const spans = memory.getFinishedSpans();
    for (const id of [ids[0]!, ids[1]!, otherId]) {
      const iteration = spans.find((s) => s.name === 'docevals iteration' && s.attributes['docevals.iteration_id'] === id)!;
      expect(iteration).toBeDefined();
      // Its documents and their calls, in its trace and under its span, whichever iteration ended to let it start.
      const documents = spans.filter((s) => s.name === 'docevals document' && s.parentSpanContext?.spanId === iteration.spanContext().spanId);
      expect(documents).toHaveLength(3);
      for (const document of documents) expect(document.spanContext().traceId).toBe(iteration.spanContext().traceId);
      const calls = spans.filter((s) => s.name === 'chat gpt-4o-mini' && s.spanContext().traceId === iteration.spanContext().traceId);
      expect(calls).toHaveLength(3);
      const end = spans.find((s) => s.name === 'docevals iteration end' && s.attributes['docevals.iteration_id'] === id)!;
      expect(end.attributes['docevals.iteration.status']).toBe('completed');
    }
    expect(spans.filter((s) => s.name === 'docevals document')).toHaveLength(9);

    // A provider refusing every call: the iteration ends failed, counted as such.
    model.state.down = true;
    const failing = (await api('POST', `/v1/evals/${evaluationId}/iterations/create`, { background: true })).body.id as string;
    await until(async () => (await status(failing)) === 'failed', 30_000, 'the failing iteration to end');

    const after = await scrape(url, METRICS_TOKEN);
    expect(count(after, 'started') - count(before, 'started')).toBe(5);
    expect(count(after, 'completed') - count(before, 'completed')).toBe(3);
    expect(count(after, 'cancelled') - count(before, 'cancelled')).toBe(1);
    expect(count(after, 'failed') - count(before, 'failed')).toBe(1);
  }, 60_000);
});

describe('probes', () => {
  it('/health/ready is 503 within 2 s of the storage stopping while /health/live stays 200, and 200 again once it is back', async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    const dataDir = await mkdtemp(join(tmpdir(), 'docevals-probes-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const app = await createStandaloneServer(
      { DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, REDIS_URL: redis.url, DOCEVALS_API_KEYS: `${KEY}:org_probes`, DOCEVALS_METRICS_PORT: '0' },
      { log: () => {}, logger: createLogger({ pretty: false, write: () => {} }) },
    );
    cleanups.push(() => app.close(100));
    const url = await app.listen();
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { storage: 'ok' } });
    // The same probes on the metrics address; /metrics there needs no token when none is set, and none is served on
    // the API's port then.
    expect((await fetch(`${app.metricsUrl}/health/ready`)).status).toBe(200);
    expect((await fetch(`${app.metricsUrl}/metrics`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    expect((await fetch(`${app.metricsUrl}/v1/evals`)).status).toBe(404);

    await redis.stop();
    const stoppedAt = performance.now();
    const down = await fetch(`${url}/health/ready`);
    expect(performance.now() - stoppedAt).toBeLessThan(2_000);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'not_ready', checks: { storage: 'unreachable' } });
    expect((await fetch(`${url}/health/live`)).status).toBe(200);
    // `/health` keeps its meaning: the process answers.
    expect((await fetch(`${url}/health`)).status).toBe(200);

    const back = await startRedisServer({ port: redis.port });
    cleanups.push(() => back.stop());
    await until(async () => (await fetch(`${url}/health/ready`)).status === 200, 10_000, 'ready again');

    // Shutting down: not ready any more while the requests in flight finish. One is held in flight (a body still
    // arriving), so the shutdown waits for it and the probe is asked during that wait.
    const held = request(`${url}/v1/evals`, { method: 'POST', headers: { 'api-key': KEY, 'content-type': 'application/json', 'content-length': '1000' } });
    held.on('error', () => undefined);
    held.write('{"name":');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = app.close(2_000);
    const during = await fetch(`${app.metricsUrl}/health/ready`);
    expect(during.status).toBe(503);
    held.destroy();
    await closing;
  }, 60_000);
});
