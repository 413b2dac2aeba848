import {
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { TRACER_NAME } from '@docevals/core/internal';
import type { DocevalsMetrics } from './metrics.js';

/**
 * The tracer provider of a process that exports no span (no `OTEL_EXPORTER_OTLP_ENDPOINT`): spans only as long as
 * the metrics need them. A span is its name, attributes, start time and status; its start and end are handed to
 * {@link DocevalsMetrics} and nothing else is kept. No ids are drawn unless asked (a request's log line asks for its
 * trace id: the caller's `traceparent` one when there was one), no sampler, no span processor, and no context
 * manager: the context is not carried through promises (nothing reads a parent), which is what the SDK's set-up
 * cost per document (issue 32: 1.26x the CPU of no tracing at a 0 ms model).
 */
export class MetricsTracerProvider implements TracerProvider {
  private readonly tracers = new Map<string, Tracer>();

  constructor(private readonly metrics: DocevalsMetrics) {}

  getTracer(name: string): Tracer {
    let tracer = this.tracers.get(name);
    if (!tracer) {
      tracer = new MetricsTracer(this.metrics, name === TRACER_NAME);
      this.tracers.set(name, tracer);
    }
    return tracer;
  }
}

class MetricsTracer implements Tracer {
  constructor(
    private readonly metrics: DocevalsMetrics,
    /** The core's tracer: its spans' ends feed the metrics (the SDK's span processor filters alike). */
    private readonly observed: boolean,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, parent?: Context): Span {
    const attributes: Attributes = { ...options.attributes };
    this.metrics.spanStarted(name, attributes);
    return new MetricsSpan(name, attributes, parent, this.observed ? this.metrics : undefined);
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = (rest.length > 1 ? rest[0] : undefined) as SpanOptions | undefined;
    const parent = (rest.length > 2 ? rest[1] : undefined) as Context | undefined;
    return fn(this.startSpan(name, options, parent)) as ReturnType<F>;
  }
}

class MetricsSpan implements Span {
  private readonly started = performance.now();
  private status: SpanStatus = { code: SpanStatusCode.UNSET };
  private ended = false;
  private context?: SpanContext;

  constructor(
    private name: string,
    private readonly attributes: Attributes,
    private readonly parent: Context | undefined,
    private readonly metrics: DocevalsMetrics | undefined,
  ) {}

  spanContext(): SpanContext {
    if (!this.context) {
      const parent = this.parent ? trace.getSpanContext(this.parent) : undefined;
      this.context = {
        traceId: parent && trace.isSpanContextValid(parent) ? parent.traceId : randomId(16),
        spanId: randomId(8),
        traceFlags: parent?.traceFlags ?? TraceFlags.NONE,
      };
    }
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (value !== undefined) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) this.setAttribute(key, value);
    return this;
  }

  addEvent(): this {
    return this;
  }

  addLink(_link: Link): this {
    return this;
  }

  addLinks(_links: Link[]): this {
    return this;
  }

  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }

  updateName(name: string): this {
    this.name = name;
    return this;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.metrics?.spanEnded({
      name: this.name,
      attributes: this.attributes,
      seconds: (performance.now() - this.started) / 1000,
      failed: this.status.code === SpanStatusCode.ERROR,
    });
  }

  isRecording(): boolean {
    return !this.ended;
  }

  recordException(): void {}
}

const ID_BYTES = Buffer.alloc(16);

/**
 * A random trace or span id of `bytes` bytes in hex, as OpenTelemetry's own id generator makes them (Math.random into a
 * reused buffer: ids must be unique, not secret; a new crypto buffer per span was a measurable part of a request).
 * Never all zeros, which W3C Trace Context calls invalid.
 */
function randomId(bytes: 8 | 16): string {
  for (let i = 0; i < bytes; i += 4) ID_BYTES.writeUInt32BE((Math.random() * 2 ** 32) >>> 0, i);
  if (ID_BYTES.subarray(0, bytes).every((byte) => byte === 0)) ID_BYTES[bytes - 1] = 1;
  return ID_BYTES.toString('hex', 0, bytes);
}
