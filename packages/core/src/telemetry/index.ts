import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

/**
 * Tracing through the OpenTelemetry API only (docs/operations.md, Traces): no SDK and no exporter here. A host that
 * registers none gets the API's no-op tracer, so a span costs a function call; a host that registers a tracer
 * provider (the standalone server does) gets the spans below, with the semantic conventions where they exist.
 */

/** The instrumentation scope of every docevals span. */
export const TRACER_NAME = '@docevals/core';

/** Span names and attribute keys docevals sets beside the standard ones (documented in docs/operations.md). */
export const SPAN = {
  /** One service operation (`docevals evals.iterations.create`), whatever the transport. */
  operation: (name: string) => `docevals ${name}`,
  /** Where an iteration was started (created, processed): its documents are its children, in any process. */
  iteration: 'docevals iteration',
  /** One document's extraction (its consensus runs) and the start of its save. */
  document: 'docevals document',
  /** An iteration's outcome recorded (`docevals.iteration.status`), by whichever process recorded it. */
  iterationEnd: 'docevals iteration end',
  /** A queue job (a batch of documents) taken by a worker. */
  queueBatch: 'docevals queue batch',
} as const;

export const ATTR = {
  operation: 'docevals.operation',
  organization: 'docevals.organization_id',
  evaluation: 'docevals.evaluation_id',
  iteration: 'docevals.iteration_id',
  job: 'docevals.job_id',
  background: 'docevals.background',
  /** completed | failed | cancelled */
  iterationStatus: 'docevals.iteration.status',
  file: 'docevals.file_id',
  /** succeeded | failed | skipped */
  documentStatus: 'docevals.document.status',
  costValue: 'docevals.cost.value',
  costCurrency: 'docevals.cost.currency',
  attempts: 'docevals.attempts',
  queueWaitMs: 'docevals.queue.wait_ms',
  batchSize: 'docevals.queue.batch_size',
  /** Items a stream span's reader got (an SSE stream's events). */
  streamItems: 'docevals.stream.items',
} as const;

/** The OpenTelemetry semantic conventions' keys used here (gen_ai.*, db.*, error.type). */
export const SEMCONV = {
  genAiOperation: 'gen_ai.operation.name',
  /** Kept for instrumentations on the conventions up to v1.36; `gen_ai.provider.name` is its successor. */
  genAiSystem: 'gen_ai.system',
  genAiProvider: 'gen_ai.provider.name',
  genAiRequestModel: 'gen_ai.request.model',
  genAiInputTokens: 'gen_ai.usage.input_tokens',
  genAiOutputTokens: 'gen_ai.usage.output_tokens',
  genAiFinishReasons: 'gen_ai.response.finish_reasons',
  dbSystem: 'db.system.name',
  dbCollection: 'db.collection.name',
  dbOperation: 'db.operation.name',
  dbBatchSize: 'db.operation.batch.size',
  errorType: 'error.type',
} as const;

const tracer = () => trace.getTracer(TRACER_NAME);

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; default: the active context. */
  parent?: Context;
}

/**
 * Runs `fn` in a new active span and ends it when `fn` settles. A rejection is recorded on the span (status error,
 * `error.type`: a DocevalsError's code or the error's name) and rethrown.
 *
 * @example
 * await inSpan('docevals iteration', { attributes: { 'docevals.iteration_id': id } }, () => runner.enqueue(ref));
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        recordError(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * A stream in a span: the span starts at the stream's first read, as a child of the context active where the stream
 * was made (a request's), is the active one during each read (the storage calls a read makes are its children), and
 * ends when the stream ends, fails (recorded as {@link inSpan} does) or is closed by its reader (an SSE client going
 * away). `docevals.stream.items` counts what was read. A stream never read opens no span.
 *
 * @example
 * const events = inStreamSpan('docevals evals.iterations.events', {}, () => iterationEvents(...));
 */
export function inStreamSpan<T>(name: string, options: SpanOptions, open: () => AsyncIterable<T>): AsyncIterable<T> {
  const parent = options.parent ?? context.active();
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let span: Span | undefined;
      let active: Context | undefined;
      let inner: AsyncIterator<T> | undefined;
      let items = 0;
      let ended = false;
      const end = (error?: unknown) => {
        if (ended || !span) return;
        ended = true;
        if (error !== undefined) recordError(span, error);
        if (span.isRecording()) span.setAttribute(ATTR.streamItems, items);
        span.end();
      };
      const step = async (read: (iterator: AsyncIterator<T>) => Promise<IteratorResult<T>>): Promise<IteratorResult<T>> => {
        if (!span) {
          span = startSpan(name, { ...options, parent });
          active = trace.setSpan(parent, span);
        }
        try {
          const result = await context.with(active!, () => read((inner ??= context.with(active!, () => open()[Symbol.asyncIterator]()))));
          if (result.done) end();
          else items++;
          return result;
        } catch (error) {
          end(error);
          throw error;
        }
      };
      return {
        next: () => step((iterator) => iterator.next()),
        return: async (value?: unknown) => {
          if (!inner) {
            ended = true;
            return { done: true, value: value as T };
          }
          try {
            return await step((iterator) => (iterator.return ? iterator.return(value) : Promise.resolve({ done: true, value: value as T })));
          } finally {
            end();
          }
        },
      };
    },
  };
}

/**
 * Starts a span without making it the active one (its end is the caller's): a span beside the work rather than
 * around it, such as a queue job's, whose documents stay children of their iteration.
 */
export function startSpan(name: string, options: SpanOptions): Span {
  return tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    options.parent ?? context.active(),
  );
}

/**
 * Marks a span failed with the error's kind (`error.type`: a DocevalsError's code, else the error's name). The
 * message is left out: it may quote a request's or a document's content.
 */
export function recordError(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const type = errorType(error);
  span.setAttribute(SEMCONV.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** A DocevalsError's code, else the error's name; `_OTHER` (the conventions' fallback) for anything else. */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return '_OTHER';
}

/**
 * The active trace context as a plain object (W3C `traceparent`/`tracestate` with the host's propagator) to carry in
 * a queue job's data; undefined when there is nothing to carry (no propagator or no active span).
 *
 * @example
 * await queue.add('plan', { ...ref, ...(traceCarrier() ? { trace: traceCarrier() } : {}) });
 */
export function traceCarrier(): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/**
 * Runs `fn` with the trace context a {@link traceCarrier} carried as the active one (the spans it opens are children
 * of the span that was active where the carrier was made); as it is without a carrier.
 */
export function withTraceCarrier<T>(carrier: Record<string, string> | undefined, fn: () => T): T {
  if (!carrier) return fn();
  return context.with(propagation.extract(ROOT_CONTEXT, carrier), fn);
}

/** The active span's trace id, for log lines; undefined without a recording span. */
export function activeTraceId(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

export { SpanKind };
