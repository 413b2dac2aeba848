import { ExtractionFailure, type ExtractionOutput, type ExtractionRequest, type Extractor, type JsonObject } from '@docevals/core';
import OpenAI, { APIError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { documentContent } from './document-content.js';
import { toExtractionFailure } from './error-mapping.js';
import { likelihoodsFromLogprobs } from './likelihoods.js';
import { modelModalities, samplingParams, supportsLogprobs } from './model-capabilities.js';
import { computeCost, DEFAULT_PRICES, type ModelPrice } from './prices.js';
import { allowsStrict, schemaName, systemPrompt } from './response-format.js';
import { undiciFetch, type FetchFunction } from './undici-fetch.js';

export interface OpenAIExtractorOptions {
  /** @default process.env.OPENAI_API_KEY (read by the SDK) */
  apiKey?: string;
  /** Any OpenAI-compatible Chat Completions endpoint. @default 'https://api.openai.com/v1' (the SDK's) */
  baseURL?: string;
  /**
   * The models this extractor serves: exact names, `*` globs, RegExps. The default serves every model, so register
   * this extractor after more specific ones (the first match wins).
   * @default ['*']
   */
  models?: Array<string | RegExp>;
  /** Sent with every request (a gateway's headers, for example). @default {} */
  defaultHeaders?: Record<string, string>;
  /** USD per 1M tokens, merged over {@link DEFAULT_PRICES}; a model in neither has api_cost null. @default {} */
  prices?: Record<string, ModelPrice>;
  /** The `OpenAI-Organization` header. @default process.env.OPENAI_ORG_ID (read by the SDK) */
  organization?: string;
  /** `max_completion_tokens` of each request. @default undefined (the model's own limit) */
  maxTokens?: number;
  /**
   * A client the host built (then apiKey, baseURL, organization and defaultHeaders are its own); its retries are not
   * used: each request sets maxRetries 0. @default a client built from the options above on first use
   */
  client?: OpenAI;
  /**
   * The `fetch` the client sends requests with (not used with `client`). Pass `globalThis.fetch` for Node's own,
   * or any fetch-compatible function (a test double, an instrumented fetch). The default, {@link undiciFetch},
   * costs about half the CPU per call of Node's `fetch`. @default undiciFetch()
   */
  fetch?: FetchFunction;
  /** @default 'openai' */
  name?: string;
  /**
   * The most pages rendered to images in `image` / `image+text` modality (a PDF's pages, or the pages a text
   * document fills); a longer document fails without retries (send it with modality `native` or `text`). @default 50
   */
  maxPages?: number;
  /**
   * Request token log-probabilities (`logprobs: true`) for runs with n_consensus 1, to give per-field likelihoods
   * (see {@link likelihoodsFromLogprobs}). `true` or `false` for every model; a function decides per model.
   * By default they are requested from every model but reasoning models ({@link supportsLogprobs}), and a model
   * whose endpoint refuses the parameter (a 400 or 422 naming `logprobs`) is asked again at once without it, and
   * not asked for logprobs again by this extractor. An explicit `true` (or a function) gets no such fallback.
   * @default undefined (automatic, as above)
   */
  logprobs?: boolean | ((model: string) => boolean);
}

/** Options of {@link buildRequest} beyond the extraction request. */
export interface BuildRequestOptions {
  /** See {@link OpenAIExtractorOptions.maxPages}. */
  maxPages?: number;
  /** Ask for token log-probabilities. @default false */
  logprobs?: boolean;
}

/**
 * An {@link Extractor} over OpenAI's Chat Completions API (or any compatible server) with structured outputs:
 * `response_format: { type: 'json_schema', json_schema: { name, schema, strict } }`, strict when the schema allows it
 * (see {@link allowsStrict}). Documents are sent by modality (see {@link documentContent}); `temperature` goes to
 * non-reasoning models, `reasoning_effort` to reasoning ones (see {@link isReasoningModel}). The SDK does not retry
 * (maxRetries 0): the core runner does, with its backoff, and its AbortSignal bounds each request.
 *
 * @example
 * const docevals = createDocevals({
 *   storage: memoryStorage(),
 *   extractors: [localRulesExtractor(), openaiExtractor({ apiKey: process.env.OPENAI_API_KEY, models: ['gpt-*', /^o\d/] })],
 * });
 */
export function openaiExtractor(options: OpenAIExtractorOptions = {}): Extractor {
  const prices = { ...DEFAULT_PRICES, ...options.prices };
  let client = options.client;
  /** Models whose endpoint refused `logprobs` (automatic mode only). */
  const refusedLogprobs = new Set<string>();

  // Built on first use, so registering the extractor without a key does not fail the host's start-up.
  function getClient(): OpenAI {
    client ??= new OpenAI({
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      ...(options.organization !== undefined ? { organization: options.organization } : {}),
      ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
      fetch: options.fetch ?? undiciFetch(),
      maxRetries: 0,
    });
    return client;
  }

  return {
    name: options.name ?? 'openai',
    models: options.models ?? ['*'],
    modalities: modelModalities,
    async extract(request: ExtractionRequest): Promise<ExtractionOutput> {
      const { model, n_consensus } = request.settings;
      const automatic = options.logprobs === undefined;
      const wanted = typeof options.logprobs === 'function' ? options.logprobs(model) : (options.logprobs ?? (supportsLogprobs(model) && !refusedLogprobs.has(model)));
      // Consensus runs get their likelihoods from agreement (docs/spec/consensus.md): logprobs only at n = 1.
      const logprobs = wanted && (n_consensus ?? 1) <= 1;
      const body = await buildRequest(request, options.maxTokens, {
        logprobs,
        ...(options.maxPages !== undefined ? { maxPages: options.maxPages } : {}),
      });
      const send = (params: ChatCompletionCreateParamsNonStreaming) =>
        getClient().chat.completions.create(params, { signal: request.signal, maxRetries: 0 });
      let completion: ChatCompletion;
      try {
        try {
          completion = await send(body);
        } catch (error) {
          if (!(automatic && logprobs && refusesLogprobs(error))) throw error;
          refusedLogprobs.add(model);
          const { logprobs: _dropped, ...withoutLogprobs } = body;
          completion = await send(withoutLogprobs);
        }
      } catch (error) {
        throw toExtractionFailure(error, request.signal);
      }
      return readCompletion(completion, request.settings.model, prices);
    },
  };
}

/** Whether an SDK error is an endpoint refusing the `logprobs` parameter (400/422 whose message names it). */
function refusesLogprobs(error: unknown): boolean {
  return error instanceof APIError && (error.status === 400 || error.status === 422) && /logprob/i.test(error.message);
}

/** The Chat Completions request for one extraction. */
export async function buildRequest(
  request: ExtractionRequest,
  maxTokens?: number,
  options: BuildRequestOptions = {},
): Promise<ChatCompletionCreateParamsNonStreaming> {
  const { maxPages } = options;
  const { json_schema: schema, settings } = request;
  return {
    model: settings.model,
    messages: [
      { role: 'system', content: systemPrompt(schema) },
      { role: 'user', content: await documentContent(request.document, settings, maxPages !== undefined ? { maxPages } : {}) },
    ],
    response_format: {
      type: 'json_schema',
      json_schema: { name: schemaName(schema), schema: schema as Record<string, unknown>, strict: allowsStrict(schema) },
    },
    ...samplingParams(settings),
    ...(maxTokens !== undefined ? { max_completion_tokens: maxTokens } : {}),
    ...(options.logprobs ? { logprobs: true } : {}),
  };
}

function readCompletion(completion: ChatCompletion, model: string, prices: Record<string, ModelPrice>): ExtractionOutput {
  const choice = completion?.choices?.[0];
  const message = choice?.message;
  if (message?.refusal) {
    throw new ExtractionFailure(`the model refused: ${message.refusal}`, { retryable: false });
  }
  const content = message?.content;
  if (typeof content !== 'string' || content.trim() === '') {
    throw new ExtractionFailure('the response has no content', { retryable: true });
  }
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch {
    const truncated = choice?.finish_reason === 'length' ? ' (cut at the token limit)' : '';
    throw new ExtractionFailure(`the response content is not valid JSON${truncated}`, { retryable: true });
  }
  const usage = completion.usage
    ? {
        prompt_tokens: completion.usage.prompt_tokens,
        completion_tokens: completion.usage.completion_tokens,
        total_tokens: completion.usage.total_tokens,
      }
    : undefined;
  const cached = completion.usage?.prompt_tokens_details?.cached_tokens ?? 0;
  // Price by the name the caller asked for, else by the one the server answered with (a dated snapshot).
  const cost =
    computeCost(model, usage && { ...usage, cached_tokens: cached }, prices) ??
    (typeof completion.model === 'string' ? computeCost(completion.model, usage && { ...usage, cached_tokens: cached }, prices) : null);
  return {
    data: data as JsonObject,
    ...(usage ? { usage } : {}),
    api_cost: cost,
    likelihoods: likelihoodsFromLogprobs(content, choice?.logprobs?.content),
    ...(typeof completion.id === 'string' ? { extraction_id: completion.id } : {}),
    ...(typeof choice?.finish_reason === 'string' ? { finish_reasons: [choice.finish_reason] } : {}),
  };
}
