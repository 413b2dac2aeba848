import { type Docevals } from '@docevals/core';
import { ATTR, SEMCONV, SPAN, TRACER_NAME } from '@docevals/core/internal';
import { SpanStatusCode, type Attributes, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { requestContext } from './request-context.js';

/** Latencies of HTTP requests and extractor calls: 5 ms to 60 s. */
export const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];
/** Storage calls: 0.5 ms to 2.5 s. */
export const STORAGE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Time a document job waits in the queue: 10 ms to 1 h. */
export const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

/** What the metrics read of an ended span (the SDK's or the metrics-only tracer's, see metrics-tracer.ts). */
export interface EndedSpan {
  name: string;
  attributes: Attributes;
  seconds: number;
  /** Its status is an error. */
  failed: boolean;
}

export interface MetricsOptions {
  /** Adds an `organization` label to the request metrics (off by default: no tenant's name in a label). */
  organizationLabel?: boolean;
}

/**
 * The Prometheus metrics of one process (docs/operations.md, Metrics), in a registry of their own. The request
 * metrics are observed by the HTTP layer ({@link DocevalsMetrics.observeRequest}); every other family is read from
 * the core's spans as they end ({@link DocevalsMetrics.spanProcessor}), so the core keeps depending on the
 * OpenTelemetry API alone; queue depth is read from the job runner when scraped.
 */
export class DocevalsMetrics {
  readonly registry = new Registry();
  private readonly organizationLabel: boolean;
  private readonly requests: Counter;
  private readonly requestSeconds: Histogram;
  private readonly iterations: Counter;
  private readonly documents: Counter;
  private readonly documentSeconds: Histogram;
  private readonly calls: Histogram;
  private readonly callErrors: Counter;
  private readonly tokens: Counter;
  private readonly cost: Counter;
  private readonly storage: Histogram;
  private readonly queueWait: Histogram;
  private readonly sources = new Set<Docevals>();

  constructor(options: MetricsOptions = {}) {
    this.organizationLabel = options.organizationLabel === true;
    const registers = [this.registry];
    const requestLabels = this.organizationLabel ? ['operation', 'status', 'organization'] : ['operation', 'status'];
    this.requests = new Counter({ name: 'docevals_http_requests_total', help: 'HTTP requests answered, by operation and status.', labelNames: requestLabels, registers });
    this.requestSeconds = new Histogram({
      name: 'docevals_http_request_duration_seconds',
      help: 'Time from a request received to its answer sent (a stream: to its end), by operation and status.',
      labelNames: requestLabels,
      buckets: CALL_BUCKETS,
      registers,
    });
    this.iterations = new Counter({ name: 'docevals_iterations_total', help: 'Iterations by model and status: started (counted where started), then completed, failed or cancelled (counted where the outcome is recorded: a worker in queue mode).', labelNames: ['status', 'model'], registers });
    this.documents = new Counter({ name: 'docevals_documents_total', help: 'Documents extracted, by model and outcome (succeeded, failed, skipped): rate() is documents per second.', labelNames: ['model', 'status'], registers });
    this.documentSeconds = new Histogram({ name: 'docevals_document_duration_seconds', help: "A document's extraction (its consensus runs and retries), by model.", labelNames: ['model'], buckets: CALL_BUCKETS, registers });
    this.calls = new Histogram({
      name: 'docevals_extractor_call_duration_seconds',
      help: 'One extractor call (an attempt), by provider, model and outcome (ok, or the error type).',
      labelNames: ['provider', 'model', 'outcome'],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.callErrors = new Counter({ name: 'docevals_extractor_errors_total', help: 'Failed extractor calls, by provider, model and error type.', labelNames: ['provider', 'model', 'error_type'], registers });
    this.tokens = new Counter({ name: 'docevals_extractor_tokens_total', help: 'Tokens the extractors reported, by provider, model and type (input, output).', labelNames: ['provider', 'model', 'type'], registers });
    this.cost = new Counter({ name: 'docevals_extractor_cost_total', help: 'Cost the extractors reported, by provider, model and currency.', labelNames: ['provider', 'model', 'currency'], registers });
    this.storage = new Histogram({
      name: 'docevals_storage_operation_duration_seconds',
      help: 'One storage call, by storage, collection, operation and outcome.',
      labelNames: ['storage', 'collection', 'operation', 'outcome'],
      buckets: STORAGE_BUCKETS,
      registers,
    });
    this.queueWait = new Histogram({ name: 'docevals_queue_wait_seconds', help: 'Time a document job waited in the queue before a worker took it, by model.', labelNames: ['model'], buckets: WAIT_BUCKETS, registers });
    const sources = this.sources;
    // Read from the job runner at scrape time, once for the three gauges (a registry collects them together); a
    // queue that does not answer within a second leaves the last values.
    let reading: Promise<void> | undefined;
    const read = () =>
      (reading ??= (async () => {
        for (const docevals of sources) {
          const stats = (await withTimeout(docevals.jobStats(), 1_000).catch(() => null)) as QueueStats | null;
          if (!stats || stats.runner !== 'bullmq') continue;
          workers.set(stats.workers ?? 0);
          for (const [model, counts] of Object.entries(stats.models ?? {})) {
            depth.set({ model }, counts.depth ?? 0);
            running.set({ model }, counts.running ?? 0);
          }
        }
      })().finally(() => (reading = undefined)));
    const collect = async () => read();
    const depth = new Gauge({ name: 'docevals_queue_depth', help: 'Document jobs waiting in the queue (queue mode), by model.', labelNames: ['model'], registers, collect });
    const running = new Gauge({ name: 'docevals_queue_running', help: 'Document jobs being run by workers (queue mode), by model.', labelNames: ['model'], registers, collect });
    const workers = new Gauge({ name: 'docevals_queue_workers', help: 'Workers connected to the queue (queue mode).', registers, collect });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Reads queue depth from this service's job runner when scraped (queue mode). */
  watchQueue(docevals: Docevals): void {
    this.sources.add(docevals);
  }

  observeRequest(operation: string, status: number, seconds: number, organization?: string): void {
    const labels: Record<string, string> = { operation, status: String(status) };
    if (this.organizationLabel) labels.organization = organization ?? '';
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
  }

  /** The Prometheus text format of every metric. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /**
   * An operation's span started, in an HTTP request's context: the request's log line and metrics get its name (and
   * an iteration started by the request, its id).
   */
  spanStarted(name: string, attributes: Attributes): void {
    const operation = attributes[ATTR.operation];
    const iteration = name === SPAN.iteration ? attributes[ATTR.iteration] : undefined;
    if (typeof operation !== 'string' && typeof iteration !== 'string') return;
    const info = requestContext.getStore();
    if (!info) return;
    if (typeof iteration === 'string') info.iterationId ??= iteration;
    if (typeof operation !== 'string') return;
    info.operations.push(operation);
    const organization = attributes[ATTR.organization];
    if (typeof organization === 'string') info.organization ??= organization;
  }

  /** Reads the core's spans from the SDK (when spans are exported): a span's end is an observation. */
  readonly spanProcessor: SpanProcessor = {
    onStart: (span: Span, _parent: Context) => this.spanStarted(span.name, span.attributes),
    onEnd: (span: ReadableSpan) => {
      if (span.instrumentationScope.name !== TRACER_NAME) return;
      this.spanEnded({
        name: span.name,
        attributes: span.attributes,
        seconds: span.duration[0] + span.duration[1] / 1e9,
        failed: span.status.code === SpanStatusCode.ERROR,
      });
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };

  /** A core span's end (one of `@docevals/core`'s tracer): its figures go to the families it feeds. */
  spanEnded(span: EndedSpan): void {
    const { attributes: a, seconds, failed } = span;
    const errorType = typeof a[SEMCONV.errorType] === 'string' ? (a[SEMCONV.errorType] as string) : 'error';
    const model = text(a[SEMCONV.genAiRequestModel], '');
    if (a[SEMCONV.dbOperation] !== undefined) {
      this.storage.observe(
        { storage: text(a[SEMCONV.dbSystem], ''), collection: text(a[SEMCONV.dbCollection], ''), operation: text(a[SEMCONV.dbOperation], ''), outcome: failed ? errorType : 'ok' },
        seconds,
      );
    } else if (a[SEMCONV.genAiOperation] !== undefined) {
      const provider = text(a[SEMCONV.genAiProvider], '');
      this.calls.observe({ provider, model, outcome: failed ? errorType : 'ok' }, seconds);
      if (failed) this.callErrors.inc({ provider, model, error_type: errorType });
      const input = a[SEMCONV.genAiInputTokens];
      const output = a[SEMCONV.genAiOutputTokens];
      if (typeof input === 'number') this.tokens.inc({ provider, model, type: 'input' }, input);
      if (typeof output === 'number') this.tokens.inc({ provider, model, type: 'output' }, output);
      const cost = a[ATTR.costValue];
      if (typeof cost === 'number' && cost > 0) this.cost.inc({ provider, model, currency: text(a[ATTR.costCurrency], '') }, cost);
    } else if (span.name === SPAN.document) {
      this.documents.inc({ model, status: text(a[ATTR.documentStatus], 'failed') });
      this.documentSeconds.observe({ model }, seconds);
    } else if (span.name === SPAN.iteration) {
      // Every start; how it ends is the `iteration end` span's, recorded once by whichever process wrote it.
      this.iterations.inc({ model, status: 'started' });
    } else if (span.name === SPAN.iterationEnd) {
      this.iterations.inc({ model, status: text(a[ATTR.iterationStatus], 'failed') });
    } else if (span.name === SPAN.queueBatch) {
      const wait = a[ATTR.queueWaitMs];
      if (typeof wait === 'number') this.queueWait.observe({ model }, wait / 1000);
    }
  }
}

/** A label value from a span attribute: strings and numbers as they are, anything else the fallback. */
const text = (value: unknown, fallback: string): string =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : fallback;

interface QueueStats {
  runner?: string;
  workers?: number;
  models?: Record<string, { depth?: number; running?: number }>;
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
