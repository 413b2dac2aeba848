import { context, propagation, trace, type TracerProvider as ApiTracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, createAlwaysRecordSampler, ParentBasedSampler, TracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Env } from '../config.js';
import { DocevalsMetrics } from './metrics.js';
import { MetricsTracerProvider } from './metrics-tracer.js';

export interface Telemetry {
  readonly metrics: DocevalsMetrics;
  /** Whether spans are exported (OTLP). */
  readonly exporting: boolean;
  /** Whether the OpenTelemetry SDK records spans (an exporter or a given span processor); else the metrics-only tracer. */
  readonly recording: boolean;
  /** Registers the tracer provider, propagator and (when recording) context manager with the OpenTelemetry API. */
  install(): void;
  /** Takes them back out of the OpenTelemetry API (a benchmark switching set-ups; a process does not need it). */
  uninstall(): void;
  /** Sends the spans not yet exported, then stops. */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  /** `service.name` of the spans. */
  serviceName: string;
  /** More span processors (a test's in-memory exporter): spans are then recorded by the SDK, as when exporting. */
  spanProcessors?: SpanProcessor[];
}

let current: Promise<Telemetry> | undefined;

/** Whether the environment sends spans out of the process (an OTLP endpoint set, the exporter not `none`). */
export function exportsTraces(env: Env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return Boolean(endpoint) && env.OTEL_TRACES_EXPORTER?.trim() !== 'none';
}

/**
 * The process's telemetry, set up and installed once (a second call answers the first's): see
 * {@link createTelemetry}.
 *
 * @example
 * const telemetry = await startTelemetry(process.env, { serviceName: 'docevals-server' });
 */
export function startTelemetry(env: Env, options: TelemetryOptions): Promise<Telemetry> {
  current ??= createTelemetry(env, options).then((telemetry) => {
    telemetry.install();
    return telemetry;
  });
  return current;
}

/**
 * The telemetry of the standalone server and the worker, not yet installed. Spans leave the process only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: the OTLP/HTTP exporter, batched,
 * configured by the standard `OTEL_EXPORTER_OTLP_*` variables, under the SDK's tracer provider with an
 * AsyncLocalStorage context manager and the W3C trace-context propagator (the trace crosses HTTP and the queue); the
 * metrics read the spans as they end, and an incoming `traceparent` that is not sampled is respected for export while
 * every span is still recorded for the metrics. With no exporter (nor span processor) no span is recorded: a
 * metrics-only tracer hands the core's spans' figures to the metrics and keeps nothing (no SDK, no context manager;
 * issue 32: the SDK's set-up cost 1.26x the CPU per document).
 *
 * @example
 * const telemetry = await createTelemetry(process.env, { serviceName: 'docevals-server' });
 * telemetry.install();
 */
export async function createTelemetry(env: Env, options: TelemetryOptions): Promise<Telemetry> {
  const metrics = new DocevalsMetrics({ organizationLabel: env.DOCEVALS_METRICS_ORGANIZATION_LABEL === 'true' });
  const processors: SpanProcessor[] = [metrics.spanProcessor, ...(options.spanProcessors ?? [])];
  const exporting = exportsTraces(env);
  if (exporting) {
    // Loaded only when configured: nothing of the exporter is in a start that does not export.
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter() }));
  }
  const recording = processors.length > 1;
  const sdk = recording
    ? new TracerProvider({
        resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || options.serviceName }),
        sampler: createAlwaysRecordSampler(new ParentBasedSampler({ root: new AlwaysOnSampler() })),
        spanProcessors: processors,
      })
    : undefined;
  const provider: ApiTracerProvider = sdk ?? new MetricsTracerProvider(metrics);
  const manager = recording ? new AsyncLocalStorageContextManager() : undefined;
  return {
    metrics,
    exporting,
    recording,
    install() {
      if (manager) context.setGlobalContextManager(manager.enable());
      // The propagator in both cases: a request's log line gives the caller's `traceparent` trace id.
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      trace.setGlobalTracerProvider(provider);
    },
    uninstall() {
      trace.disable();
      propagation.disable();
      if (manager) {
        context.disable();
        manager.disable();
      }
    },
    shutdown: async () => {
      await sdk?.shutdown().catch(() => undefined);
    },
  };
}
