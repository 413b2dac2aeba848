import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, createAlwaysRecordSampler, ParentBasedSampler, TracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Env } from '../config.js';
import { DocevalsMetrics } from './metrics.js';

export interface Telemetry {
  readonly metrics: DocevalsMetrics;
  /** Whether spans are exported (OTLP). */
  readonly exporting: boolean;
  /** Sends the spans not yet exported, then stops. */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  /** `service.name` of the spans. */
  serviceName: string;
  /** More span processors (a test's in-memory exporter). */
  spanProcessors?: SpanProcessor[];
}

let current: Promise<Telemetry> | undefined;

/**
 * The process's telemetry, set up once (a second call answers the first's): a tracer provider registered with the
 * OpenTelemetry API, with an AsyncLocalStorage context manager and the W3C trace-context propagator (the trace crosses
 * HTTP and the queue); the metrics read the spans as they end. Spans leave the process only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: the OTLP/HTTP exporter, batched,
 * configured by the standard `OTEL_EXPORTER_OTLP_*` variables. An incoming `traceparent` that is not sampled is
 * respected for export; every span is still recorded for the metrics.
 *
 * @example
 * const telemetry = await startTelemetry(process.env, { serviceName: 'docevals-server' });
 */
export function startTelemetry(env: Env, options: TelemetryOptions): Promise<Telemetry> {
  current ??= setUp(env, options);
  return current;
}

async function setUp(env: Env, options: TelemetryOptions): Promise<Telemetry> {
  const metrics = new DocevalsMetrics({ organizationLabel: env.DOCEVALS_METRICS_ORGANIZATION_LABEL === 'true' });
  const processors: SpanProcessor[] = [metrics.spanProcessor, ...(options.spanProcessors ?? [])];
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const exporting = Boolean(endpoint) && env.OTEL_TRACES_EXPORTER?.trim() !== 'none';
  if (exporting) {
    // Loaded only when configured: nothing of the exporter is in a start that does not export.
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter() }));
  }
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || options.serviceName }),
    sampler: createAlwaysRecordSampler(new ParentBasedSampler({ root: new AlwaysOnSampler() })),
    spanProcessors: processors,
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    metrics,
    exporting,
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
