/** How extractor calls are made (docs/spec/service.md, Iterations and Limits). */
export interface ExtractionOptions {
  /** Extractor calls in flight per iteration, documents and consensus runs together. @default 8 */
  concurrency: number;
  /** Per-call timeout. @default 120_000 */
  timeoutMs: number;
  /** Retries after the first try on 429, 5xx, timeouts, invalid JSON and schema failures. @default 2 */
  retries: number;
  /** First backoff delay; doubles each retry, with full jitter. @default 500 */
  backoffBaseMs: number;
  /** Cap on one backoff delay. @default 10_000 */
  backoffMaxMs: number;
}
