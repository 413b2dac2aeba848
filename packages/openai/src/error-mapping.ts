import { ExtractionFailure } from '@docevals/core';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';

/**
 * An OpenAI SDK error as an {@link ExtractionFailure}: 408, 409, 429, 5xx, timeouts and connection errors are
 * retryable (the core runner retries with backoff; the SDK's own retries are off); any other 4xx is not.
 */
export function toExtractionFailure(error: unknown, signal: AbortSignal): ExtractionFailure {
  if (error instanceof ExtractionFailure) return error;
  if (error instanceof APIUserAbortError || signal.aborted) {
    const reason = signal.reason instanceof Error ? signal.reason.message : 'the request was aborted';
    return new ExtractionFailure(reason, { retryable: true, cause: error });
  }
  if (error instanceof APIConnectionError) {
    // APIConnectionTimeoutError is a subclass: the SDK's own timeout.
    return new ExtractionFailure(`connection to the provider failed: ${error.message}`, { retryable: true, cause: error });
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    return new ExtractionFailure(`HTTP ${status}: ${error.message}`, { retryable, status, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ExtractionFailure(`the OpenAI client failed: ${message}`, { retryable: false, cause: error });
}
