import type { JsonObject } from './json/assert-json.js';
import type { InferenceSettings, Modality } from './schemas/inference-settings.js';
import type { ApiCost } from './schemas/metadata.js';

/** The document an extractor reads. */
export interface ExtractionDocument {
  /** The file_id. */
  id: string;
  filename: string;
  mime_type: string;
  bytes: Uint8Array;
}

export interface ExtractionRequest {
  document: ExtractionDocument;
  json_schema: JsonObject;
  /** Resolved settings; `model` is the name the caller asked for. */
  settings: InferenceSettings;
  /** Aborted on the per-call timeout; pass it to the HTTP client. */
  signal: AbortSignal;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ExtractionOutput {
  /** The extracted data; the core validates it against the JSON schema. */
  data: unknown;
  usage?: TokenUsage;
  /** Null or absent when the model's price is unknown: never a made-up cost. */
  api_cost?: ApiCost | null;
  /** Per-field confidences, when the provider gave log-probabilities. */
  likelihoods?: JsonObject | null;
  extraction_id?: string;
  /** Why the model stopped (`stop`, `length`, ...), one per choice: traced as `gen_ai.response.finish_reasons`. */
  finish_reasons?: readonly string[];
}

/**
 * An extraction backend. The host registers extractors with `createDocevals({ extractors })`; a model is served
 * by the first extractor whose `models` matches it (an exact name, a `*` glob such as `gpt-*`, or a RegExp).
 *
 * Throw {@link ExtractionFailure} with `retryable: true` for failures worth another try (429, 5xx, timeouts,
 * output that is not JSON); anything else fails the call at once.
 */
export interface Extractor {
  readonly name: string;
  readonly models: ReadonlyArray<string | RegExp>;
  /**
   * The modalities this extractor reads (GET /v1/models lists them): a list for every model, or a function of one
   * `models` entry as text (a name, a glob, a RegExp as `/source/flags`). Optional: undeclared lists as null.
   */
  readonly modalities?: ReadonlyArray<Modality> | ((model: string) => ReadonlyArray<Modality>);
  extract(request: ExtractionRequest): Promise<ExtractionOutput>;
}

/** A failed extraction call. `retryable` decides whether the runner tries again (with backoff). */
export class ExtractionFailure extends Error {
  override readonly name = 'ExtractionFailure';
  readonly retryable: boolean;
  readonly status?: number;

  constructor(message: string, options: { retryable: boolean; status?: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable;
    if (options.status !== undefined) this.status = options.status;
  }
}
