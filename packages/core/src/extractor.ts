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
  /**
   * The key of the organization that runs this extraction, for an extractor that declares
   * {@link Extractor.credentials}: absent when the organization has none and the host's own key serves.
   */
  credentials?: ProviderCredentials;
}

/** An organization's key for one provider, decrypted for one call. Never log it or put it in an error. */
export interface ProviderCredentials {
  /** `OpenAI`, `Anthropic`, `Gemini`, `xAI`, or `custom` (the organization's own endpoint). */
  provider: string;
  /** Absent for a custom endpoint that needs none. */
  api_key?: string;
  /** The organization's custom endpoint's base URL; absent for a provider (its own base URL). */
  base_url?: string;
}

/** Which organization key a model needs ({@link Extractor.credentials}). */
export interface CredentialNeed {
  /** `OpenAI`, `Anthropic`, `Gemini`, `xAI` or `custom`. */
  provider: string;
  /** The host configured its own key for this provider: the fallback when the organization stored none. */
  host: boolean;
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
  /**
   * For an extractor that runs models with each organization's own provider keys: which provider `model` needs
   * (null: none). The service then passes the running organization's key in {@link ExtractionRequest.credentials},
   * or, when it stored none, nothing if `host` is true (the extractor uses the host's key) and a 422 naming the
   * provider otherwise.
   */
  credentials?(model: string): CredentialNeed | null;
  /**
   * The system that serves `model`, as the OpenTelemetry generative-AI conventions name it (`gen_ai.provider.name`:
   * `openai`, `anthropic`, `gcp.gemini`, `x_ai`, ...), for an extractor that routes models to several providers. Traces
   * and the server's metrics (`provider` label) use it; absent or undefined: the extractor's {@link Extractor.name}.
   */
  providerName?(model: string): string | undefined;
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
