import type { ValidateFunction } from 'ajv/dist/2020.js';
import { ExtractionFailure, type ExtractionDocument, type ExtractionOutput, type Extractor, type ProviderCredentials } from '../extractor.js';
import { describeSchemaErrors } from '../json-schema/compile.js';
import { findJsonProblem, type JsonObject } from '../json/assert-json.js';
import type { InferenceSettings } from '../schemas/inference-settings.js';
import type { ExtractionOptions } from './extraction-options.js';
import { backoffDelay, sleep } from './backoff.js';
import { ATTR, inSpan, SEMCONV, SpanKind } from '../telemetry/index.js';
import { SpanStatusCode, type Span } from '@opentelemetry/api';

/** What one extractor attempt reported, for `extractAll`'s `onCall` hook (progress, logs, tests). */
export interface ExtractionCallEvent {
  /** Index of the document in the `documents` given to `extractAll`. */
  document_index: number;
  document_id: string;
  /** Consensus run, 0-based (always 0 when n_consensus is 1). */
  run: number;
  /** 1 for the first try, 2 for the first retry, ... */
  attempt: number;
  ok: boolean;
  /** Why the attempt failed. */
  error?: string;
  /** Whether the runner tries again after this failure. */
  will_retry?: boolean;
  duration_ms: number;
}

/** One consensus run after its retries: the output that passed the schema, or why it failed. */
export type RunResult =
  | { ok: true; data: JsonObject; output: ExtractionOutput; attempts: number }
  | { ok: false; error: string; attempts: number };

export interface RunContext {
  extractor: Extractor;
  document: ExtractionDocument;
  documentIndex: number;
  run: number;
  jsonSchema: JsonObject;
  settings: InferenceSettings;
  validate: ValidateFunction;
  /** Shared by every call of one `extractAll`: the only place concurrency is bounded. */
  /** Runs one attempt when a slot is free (p-limit, or p-limit then a host's shared slot). */
  limit: <T>(fn: () => Promise<T>) => Promise<T>;
  options: ExtractionOptions;
  /** Aborted when the work is cancelled: no attempt starts after it, and it reaches the extractor's call. */
  signal?: AbortSignal;
  onCall?: (event: ExtractionCallEvent) => void;
  /** The running organization's key, passed to the extractor and scrubbed from every error it reports. */
  credentials?: ProviderCredentials;
}

type Attempt =
  /** `schemaError`: the output is a JSON object that does not match the schema (kept when no retry does better). */
  | { ok: true; data: JsonObject; output: ExtractionOutput; schemaError?: string }
  | { ok: false; error: string; retryable: boolean };

/**
 * Runs one consensus run: an extractor call under the per-call timeout, retried with backoff on retryable failures
 * and on output that fails the JSON schema. Output that still fails the schema after the last attempt is kept: a
 * malformed prediction is still a prediction (scored field by field, flagged `schema_valid: false` by the service).
 * Never throws.
 *
 * Each attempt takes a slot of `limit` and gives it back before the backoff sleep, so a document waiting to retry
 * does not keep another document from running (the limit is about calls in flight, not documents).
 */
export async function callWithRetries(context: RunContext): Promise<RunResult> {
  const maxAttempts = context.options.retries + 1;
  let lastError = 'the extraction failed';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) await sleep(backoffDelay(attempt - 1, context.options));
    if (context.signal?.aborted) return { ok: false, error: CANCELLED, attempts: attempt - 1 };
    // Timed inside the limit: waiting for a slot is neither part of the call nor of its timeout.
    const { result, duration } = await context.limit(async () => {
      // Checked again once a slot is free: a call queued behind the limit never starts after a cancel.
      if (context.signal?.aborted) return { result: { ok: false, error: CANCELLED, retryable: false } as Attempt, duration: 0 };
      const started = Date.now();
      const outcome = await tracedAttempt(context, attempt);
      return { result: outcome, duration: Date.now() - started };
    });
    const malformed = result.ok && result.schemaError !== undefined;
    const willRetry = (malformed || (!result.ok && result.retryable)) && attempt < maxAttempts;
    const error = result.ok ? result.schemaError : result.error;
    notify(context, {
      document_index: context.documentIndex,
      document_id: context.document.id,
      run: context.run,
      attempt,
      ok: result.ok && !malformed,
      ...(error !== undefined ? { error, will_retry: willRetry } : {}),
      duration_ms: duration,
    });
    if (result.ok && !willRetry) return { ok: true, data: result.data, output: result.output, attempts: attempt };
    if (result.ok) continue;
    lastError = result.error;
    if (!result.retryable) return { ok: false, error: result.error, attempts: attempt };
  }
  return {
    ok: false,
    error: maxAttempts > 1 ? `${lastError} (gave up after ${maxAttempts} attempts)` : lastError,
    attempts: maxAttempts,
  };
}

/** The error of a document whose work was cancelled. */
export const CANCELLED = 'cancelled';

/**
 * One attempt in a CLIENT span named by the generative-AI conventions (`chat <model>`): the provider (the one the
 * extractor routes the model to, {@link Extractor.providerName}, else the extractor's name) and the model asked, the tokens used, the finish reasons and the cost (`docevals.cost.*`: the conventions have
 * none) when the extractor reports them; a failure as `error.type` (`timeout`, `cancelled`, `invalid_output`,
 * `provider_error`, `extractor_error`). Each attempt is a span of its own, timed inside the concurrency limit: a retry
 * is a second span, and the wait for a slot is no part of a call's time.
 */
function tracedAttempt(context: RunContext, attempt: number): Promise<Attempt> {
  const provider = context.extractor.providerName?.(context.settings.model) ?? context.extractor.name;
  const model = context.settings.model;
  return inSpan(
    `chat ${model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [SEMCONV.genAiOperation]: 'chat',
        [SEMCONV.genAiSystem]: provider,
        [SEMCONV.genAiProvider]: provider,
        [SEMCONV.genAiRequestModel]: model,
        [ATTR.file]: context.document.id,
        [ATTR.attempts]: attempt,
      },
    },
    async (span) => {
      const outcome = await attemptOnce(context);
      if (span.isRecording()) describeAttempt(span, outcome);
      return outcome;
    },
  );
}

function describeAttempt(span: Span, outcome: Attempt): void {
  if (!outcome.ok) {
    const type = outcome.error === CANCELLED
      ? 'cancelled'
      : outcome.error.startsWith('the extractor call timed out')
        ? 'timeout'
        : outcome.error.startsWith('the output does not match') || outcome.error.startsWith('the extractor output is not')
          ? 'invalid_output'
          : outcome.retryable
            ? 'provider_error'
            : 'extractor_error';
    span.setAttribute(SEMCONV.errorType, type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    return;
  }
  const { usage, api_cost: cost, finish_reasons: reasons } = outcome.output;
  if (usage) {
    span.setAttribute(SEMCONV.genAiInputTokens, usage.prompt_tokens);
    span.setAttribute(SEMCONV.genAiOutputTokens, usage.completion_tokens);
  }
  if (cost) {
    span.setAttribute(ATTR.costValue, cost.value);
    span.setAttribute(ATTR.costCurrency, cost.currency);
  }
  if (reasons && reasons.length > 0) span.setAttribute(SEMCONV.genAiFinishReasons, [...reasons]);
}

async function attemptOnce(context: RunContext): Promise<Attempt> {
  const { timeoutMs } = context.options;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`the extractor call timed out after ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  // A cancel aborts the call in flight through the same signal the timeout uses.
  const onCancel = () => controller.abort(new DOMException('the iteration was cancelled', 'AbortError'));
  context.signal?.addEventListener('abort', onCancel, { once: true });
  let onAbort: (() => void) | undefined;
  // An extractor that ignores the signal must not hold the document past the timeout: race the call with it.
  const timedOut = new Promise<never>((_, reject) => {
    onAbort = () => reject(new ExtractionFailure(`the extractor call timed out after ${timeoutMs} ms`, { retryable: true }));
    controller.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const output = await Promise.race([
      context.extractor.extract({
        document: context.document,
        json_schema: context.jsonSchema,
        settings: context.settings,
        signal: controller.signal,
        ...(context.credentials ? { credentials: context.credentials } : {}),
      }),
      timedOut,
    ]);
    return checkOutput(output, context.validate);
  } catch (error) {
    if (context.signal?.aborted) return { ok: false, error: CANCELLED, retryable: false };
    if (controller.signal.aborted) {
      return { ok: false, error: `the extractor call timed out after ${timeoutMs} ms`, retryable: true };
    }
    const failure = describeFailure(error);
    const key = context.credentials?.api_key;
    // A provider's error may quote the key it refused: it never reaches a prediction, a log or a response.
    return key && key.length >= 4 && !failure.ok ? { ...failure, error: failure.error.split(key).join('[redacted]') } : failure;
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener('abort', onCancel);
    if (onAbort) controller.signal.removeEventListener('abort', onAbort);
  }
}

function checkOutput(output: ExtractionOutput, validate: ValidateFunction): Attempt {
  const data = output?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || findJsonProblem(data) !== null) {
    // Same class of failure as invalid JSON content: a model may do better on another try.
    return { ok: false, error: 'the extractor output is not a JSON object', retryable: true };
  }
  if (!validate(data)) {
    const schemaError = `the output does not match the JSON schema: ${describeSchemaErrors(validate.errors)}`;
    return { ok: true, data: data as JsonObject, output, schemaError };
  }
  return { ok: true, data: data as JsonObject, output };
}

function describeFailure(error: unknown): Attempt {
  if (error instanceof ExtractionFailure) {
    const status = error.status !== undefined && !error.message.includes(String(error.status)) ? ` (HTTP ${error.status})` : '';
    return { ok: false, error: `${error.message}${status}`, retryable: error.retryable };
  }
  // Anything that is not an ExtractionFailure is a bug or a refusal of the extractor: trying again will not help.
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, error: `the extractor failed: ${message}`, retryable: false };
}

function notify(context: RunContext, event: ExtractionCallEvent): void {
  try {
    context.onCall?.(event);
  } catch {
    // A host's progress hook must not turn a good extraction into a failed one.
  }
}
