import { nanoid } from 'nanoid';
import pLimit from 'p-limit';
import { DocevalsError, validationError } from '../errors.js';
import type { CredentialNeed, ExtractionDocument, Extractor, ProviderCredentials } from '../extractor.js';
import { compileJsonSchema } from '../json-schema/compile.js';
import { isJsonValue, type JsonObject } from '../json/assert-json.js';
import type { InferenceSettings } from '../schemas/inference-settings.js';
import type { ApiCost, Metadata } from '../schemas/metadata.js';
import type { ExtractionOptions } from './extraction-options.js';
import { callWithRetries, type ExtractionCallEvent, type RunResult } from './call-with-retries.js';
import { describeModelPattern, findExtractor } from './model-routing.js';
import { reconcile } from './reconcile.js';
import { ATTR, inSpan, SEMCONV, SPAN } from '../telemetry/index.js';

/** The defaults of {@link ExtractionOptions} (docs/spec/service.md, Limits). */
export const DEFAULT_EXTRACTION_OPTIONS: Readonly<ExtractionOptions> = Object.freeze({
  concurrency: 8,
  timeoutMs: 120_000,
  retries: 2,
  backoffBaseMs: 500,
  backoffMaxMs: 10_000,
});

/** One document's result: the prediction (`{}` when the extraction failed) and its metadata (with `error` then). */
export interface DocumentPrediction {
  prediction: JsonObject;
  metadata: Metadata | null;
}

export interface ExtractAllOptions {
  /** Called after every extractor attempt, retries included. Errors it throws are ignored. */
  onCall?: (event: ExtractionCallEvent) => void;
  /**
   * Called with each document's result as soon as it is ready (before the others finish), and awaited: a caller
   * saves each prediction as it completes. An error it throws rejects the whole call.
   */
  onDocument?: (documentIndex: number, result: DocumentPrediction) => Promise<void> | void;
  /**
   * Stops the work (a cancelled iteration): no extractor call starts once it is aborted, and calls in flight get it
   * combined with their timeout signal. The documents it stopped end as failed with `metadata.error` "cancelled";
   * `onDocument` is not called for them.
   */
  signal?: AbortSignal;
  /**
   * A slot outside this call's own limit that every extractor attempt also takes (the host's slots shared fairly
   * between organizations: docs/spec/jobs.md, Fair scheduling). Waiting for it is not part of the call's timeout.
   */
  slot?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** The running organization's key for the model's provider (see {@link ExtractionRunner.credentialNeed}). */
  credentials?: ProviderCredentials;
}

export interface ExtractionRunner {
  /** The registered extractors' model entries as text (a RegExp as `/source/flags`), without duplicates. */
  servedModels(): string[];
  /** Throws a `validation_error` (422) at `path` naming `model` and the served models when no extractor serves it. */
  assertServed(model: string, path?: string): void;
  /**
   * Extracts every document (n_consensus runs each, reconciled), at most `concurrency` extractor calls in flight
   * over all of them. One prediction per document, in the same order. An extraction that fails after its retries
   * gives `{}` with `metadata.error`; it never throws for that (only for an unserved model or an invalid schema).
   */
  extractAll(
    documents: ReadonlyArray<ExtractionDocument>,
    jsonSchema: JsonObject,
    settings: InferenceSettings,
    options?: ExtractAllOptions,
  ): Promise<DocumentPrediction[]>;
  /** One document; a failed extraction is a `DocevalsError('extractor_error')` carrying the reason. */
  extractOne(
    document: ExtractionDocument,
    jsonSchema: JsonObject,
    settings: InferenceSettings,
    options?: Pick<ExtractAllOptions, 'credentials'>,
  ): Promise<DocumentPrediction>;
  /** Which organization key `model` needs (its extractor's {@link Extractor.credentials}); null when none or unserved. */
  credentialNeed(model: string): CredentialNeed | null;
}

export interface ExtractionRunnerOptions extends Partial<ExtractionOptions> {
  /** Tried in order; a model is served by the first extractor whose `models` matches it. */
  extractors: Extractor[];
}

/**
 * Routes models to extractors and runs extractions under the host's limits: one concurrency limit shared by every
 * document and consensus run of a call, a per-call timeout passed as an AbortSignal, retries with exponential
 * backoff and full jitter on retryable failures and on output that fails the JSON schema.
 *
 * @example
 * const runner = createExtractionRunner({ extractors: [localRulesExtractor()], concurrency: 4 });
 * const [first] = await runner.extractAll(documents, schema, { ...DEFAULT_INFERENCE_SETTINGS, model: 'local-rules' });
 */
export function createExtractionRunner(options: ExtractionRunnerOptions): ExtractionRunner {
  const extractors = [...options.extractors];
  const config = resolveOptions(options);

  function servedModels(): string[] {
    return [...new Set(extractors.flatMap((e) => e.models.map(describeModelPattern)))];
  }

  function route(model: string, path = 'model'): Extractor {
    const extractor = findExtractor(extractors, model);
    if (extractor) return extractor;
    const served = servedModels();
    const list = served.length > 0 ? served.map((m) => `"${m}"`).join(', ') : 'none';
    const message = `No extractor serves the model "${model}". Served models: ${list}.`;
    throw validationError(message, [{ path, message }]);
  }

  async function extractAll(
    documents: ReadonlyArray<ExtractionDocument>,
    jsonSchema: JsonObject,
    settings: InferenceSettings,
    callOptions: ExtractAllOptions = {},
  ): Promise<DocumentPrediction[]> {
    const extractor = route(settings.model, 'inference_settings.model');
    const validate = compileJsonSchema(jsonSchema, 'json_schema');
    const runs = Math.max(1, Math.floor(settings.n_consensus ?? 1));
    // One limit per call, over documents and consensus runs together (docs/spec/service.md, Iterations).
    const perCall = pLimit(config.concurrency);
    const slot = callOptions.slot;
    const limit = slot ? <T>(fn: () => Promise<T>) => perCall(() => slot(fn)) : perCall;
    return Promise.all(
      documents.map((document, documentIndex) =>
        // One span per document: its consensus runs' calls, then the start of its save, are its children.
        inSpan(SPAN.document, { attributes: { [ATTR.file]: document.id, [SEMCONV.genAiRequestModel]: settings.model } }, async (span) => {
          const results = await Promise.all(
            Array.from({ length: runs }, (_, run) =>
              callWithRetries({
                extractor,
                document,
                documentIndex,
                run,
                jsonSchema,
                settings,
                validate,
                limit,
                options: config,
                ...(callOptions.signal ? { signal: callOptions.signal } : {}),
                ...(callOptions.onCall ? { onCall: callOptions.onCall } : {}),
                ...(callOptions.credentials ? { credentials: callOptions.credentials } : {}),
              }),
            ),
          );
          const result = runs === 1 ? single(results[0]!) : consensus(results);
          const stopped = callOptions.signal?.aborted === true;
          span.setAttribute(ATTR.documentStatus, stopped ? 'skipped' : typeof result.metadata?.error === 'string' ? 'failed' : 'succeeded');
          if (callOptions.onDocument && !stopped) await callOptions.onDocument(documentIndex, result);
          return result;
        }),
      ),
    );
  }

  async function extractOne(
    document: ExtractionDocument,
    jsonSchema: JsonObject,
    settings: InferenceSettings,
    oneOptions: Pick<ExtractAllOptions, 'credentials'> = {},
  ): Promise<DocumentPrediction> {
    const [result] = await extractAll([document], jsonSchema, settings, oneOptions);
    const error = result!.metadata?.error;
    if (typeof error === 'string') {
      throw new DocevalsError('extractor_error', `The extraction of "${document.filename}" failed: ${error}`);
    }
    return result!;
  }

  function credentialNeed(model: string): CredentialNeed | null {
    return findExtractor(extractors, model)?.credentials?.(model) ?? null;
  }

  return { servedModels, assertServed: (model, path) => void route(model, path), extractAll, extractOne, credentialNeed };
}

function resolveOptions(options: Partial<ExtractionOptions>): ExtractionOptions {
  const pick = (key: keyof ExtractionOptions, min: number): number => {
    const value = options[key] ?? DEFAULT_EXTRACTION_OPTIONS[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
      throw validationError(`extraction.${key} must be a number >= ${min}`, [
        { path: `extraction.${key}`, message: `must be a number >= ${min}` },
      ]);
    }
    return value;
  };
  return {
    concurrency: Math.floor(pick('concurrency', 1)),
    timeoutMs: pick('timeoutMs', 1),
    retries: Math.floor(pick('retries', 0)),
    backoffBaseMs: pick('backoffBaseMs', 0),
    backoffMaxMs: pick('backoffMaxMs', 0),
  };
}

/** n_consensus = 1: the output as it is; likelihoods only when the extractor computed some. */
function single(result: RunResult): DocumentPrediction {
  if (!result.ok) {
    return {
      prediction: {},
      metadata: { extraction_id: newExtractionId(), likelihoods: null, consensus_details: null, api_cost: null, error: result.error },
    };
  }
  const { output } = result;
  return {
    prediction: result.data,
    metadata: {
      extraction_id: output.extraction_id ?? newExtractionId(),
      likelihoods: output.likelihoods ?? null,
      consensus_details: null,
      api_cost: output.api_cost ?? null,
      ...usageOf([output]),
    },
  };
}

/** Token usage summed over runs, as the iteration's `usage` adds it up; nothing when no run reported any. */
function usageOf(outputs: ReadonlyArray<{ usage?: { prompt_tokens: number; completion_tokens: number } | undefined }>): {
  usage?: { input_tokens: number; output_tokens: number };
} {
  const known = outputs.filter((o) => o.usage);
  if (known.length === 0) return {};
  return {
    usage: {
      input_tokens: known.reduce((s, o) => s + o.usage!.prompt_tokens, 0),
      output_tokens: known.reduce((s, o) => s + o.usage!.completion_tokens, 0),
    },
  };
}

/** n_consensus > 1: failed runs do not vote (docs/spec/consensus.md); every run is listed in `consensus_details`. */
function consensus(results: RunResult[]): DocumentPrediction {
  const details = results.map((r): JsonObject => {
    if (!r.ok) return { prediction: null, error: r.error };
    const usage = r.output.usage && { ...r.output.usage };
    return usage && isJsonValue(usage) ? { prediction: r.data, usage } : { prediction: r.data };
  });
  const valid = results.filter((r): r is Extract<RunResult, { ok: true }> => r.ok);
  const api_cost = sumCosts(valid.map((r) => r.output.api_cost ?? null));
  const base = { extraction_id: newExtractionId(), consensus_details: details, api_cost, ...usageOf(valid.map((r) => r.output)) };
  if (valid.length === 0) {
    const failed = results.filter((r): r is Extract<RunResult, { ok: false }> => !r.ok);
    const reasons = failed.map((r, i) => `run ${i + 1}: ${r.error}`).join('; ');
    return {
      prediction: {},
      metadata: { ...base, likelihoods: null, error: `every one of the ${results.length} consensus runs failed (${reasons})` },
    };
  }
  const { prediction, likelihoods } = reconcile(valid.map((r) => r.data));
  return { prediction, metadata: { ...base, likelihoods } };
}

/** The sum of the known costs (one currency: the first known one's); null when no run's cost is known. */
function sumCosts(costs: Array<ApiCost | null>): ApiCost | null {
  const known = costs.filter((c): c is ApiCost => c !== null);
  if (known.length === 0) return null;
  const currency = known[0]!.currency;
  const value = known.filter((c) => c.currency === currency).reduce((sum, c) => sum + c.value, 0);
  return { value, currency };
}

function newExtractionId(): string {
  return `extr_${nanoid()}`;
}
