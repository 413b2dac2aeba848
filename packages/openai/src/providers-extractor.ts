import {
  ExtractionFailure,
  type CredentialNeed,
  type ExtractionOutput,
  type ExtractionRequest,
  type Extractor,
} from '@docevals/core';
import {
  CUSTOM_MODEL_PREFIX,
  CUSTOM_PROVIDER,
  PROVIDER_INFO,
  providerOfModel,
  type Provider,
} from '@docevals/core/internal';
import { modelModalities } from './model-capabilities.js';
import { openaiExtractor, type OpenAIExtractorOptions } from './openai-extractor.js';
import type { ModelPrice } from './prices.js';

/** The host's own key for a provider: every organization's fallback. */
export interface HostProviderKey {
  apiKey?: string;
  /** Another base URL than the provider's (a gateway, a test server). */
  baseURL?: string;
}

export interface ProvidersExtractorOptions {
  /** The host's keys per provider (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, ...): used when an organization has none. */
  hostKeys?: Partial<Record<Provider, HostProviderKey>>;
  /** USD per 1M tokens, merged over the published prices. */
  prices?: Record<string, ModelPrice>;
  /** Base URLs other than the providers' own, for every organization (a gateway, a test server). */
  baseURLs?: Partial<Record<Provider, string>>;
  /** Options of every underlying {@link openaiExtractor} (maxPages, maxTokens, logprobs, defaultHeaders). */
  openai?: Omit<OpenAIExtractorOptions, 'apiKey' | 'baseURL' | 'client' | 'models' | 'name' | 'prices'>;
  /** How many clients (one per base URL and key) are kept. @default 256 */
  maxClients?: number;
  /** @default 'providers' */
  name?: string;
}

/**
 * Each provider's `gen_ai.provider.name` (the OpenTelemetry generative-AI conventions' well-known values); an
 * organization's custom endpoint is `custom` (whatever serves it: its address is the organization's own).
 */
const GEN_AI_PROVIDER: Readonly<Record<Provider, string>> = Object.freeze({
  OpenAI: 'openai',
  Anthropic: 'anthropic',
  Gemini: 'gcp.gemini',
  xAI: 'x_ai',
});

/**
 * An {@link Extractor} that runs each provider's models with the key of the organization that runs them: OpenAI
 * (`gpt-*`, `o1`, `o3`...), Anthropic (`claude-*`), Gemini (`gemini-*`), xAI (`grok-*`), each through its
 * OpenAI-compatible endpoint with the OpenAI SDK, and `custom/<model>` through the organization's own endpoint. The
 * service passes the organization's key per call (`request.credentials`, decrypted for that call only); without one,
 * the host's key for the provider serves (the service answers a 422 when neither exists).
 *
 * @example
 * createDocevals({
 *   storage,
 *   secrets: { cipher: await aesGcmCipher([parseMasterKey(process.env.DOCEVALS_SECRETS_KEY!)]) },
 *   extractors: [localRulesExtractor(), providersExtractor({ hostKeys: { OpenAI: { apiKey: process.env.OPENAI_API_KEY } } })],
 * });
 */
export function providersExtractor(options: ProvidersExtractorOptions = {}): Extractor {
  const maxClients = options.maxClients ?? 256;
  /** One OpenAI-compatible extractor per (base URL, key): its client keeps its connections; oldest dropped first. */
  const clients = new Map<string, Extractor>();
  const hostKeys = options.hostKeys ?? {};

  function clientFor(baseURL: string, apiKey: string | undefined): Extractor {
    const id = `${baseURL}\n${apiKey ?? ''}`;
    let extractor = clients.get(id);
    if (extractor) {
      clients.delete(id);
      clients.set(id, extractor);
      return extractor;
    }
    extractor = openaiExtractor({
      ...options.openai,
      ...(apiKey !== undefined ? { apiKey } : {}),
      baseURL,
      ...(options.prices ? { prices: options.prices } : {}),
    });
    clients.set(id, extractor);
    if (clients.size > maxClients) clients.delete(clients.keys().next().value!);
    return extractor;
  }

  function need(model: string): CredentialNeed | null {
    if (model.startsWith(CUSTOM_MODEL_PREFIX)) return { provider: CUSTOM_PROVIDER, host: false };
    const provider = providerOfModel(model);
    if (!provider) return null;
    const host = hostKeys[provider];
    return { provider, host: host !== undefined && (host.apiKey !== undefined || host.baseURL !== undefined) };
  }

  return {
    name: options.name ?? 'providers',
    models: [...Object.values(PROVIDER_INFO).flatMap((info) => info.models), `${CUSTOM_MODEL_PREFIX}*`],
    modalities: modelModalities,
    credentials: need,
    providerName: (model) => {
      const required = need(model);
      return required ? (required.provider === CUSTOM_PROVIDER ? CUSTOM_PROVIDER : GEN_AI_PROVIDER[required.provider as Provider]) : undefined;
    },
    async extract(request: ExtractionRequest): Promise<ExtractionOutput> {
      const { model } = request.settings;
      const required = need(model);
      if (!required) throw new ExtractionFailure(`no provider serves the model "${model}"`, { retryable: false });
      const { credentials } = request;
      if (required.provider === CUSTOM_PROVIDER) {
        if (!credentials?.base_url) throw new ExtractionFailure('this organization has no custom endpoint', { retryable: false });
        // Never the host's key at an organization's URL: a custom endpoint without a key gets a placeholder (the SDK
        // would otherwise read OPENAI_API_KEY from the host's environment); a local server (Ollama, vLLM) takes any.
        const extractor = clientFor(credentials.base_url, credentials.api_key ?? 'none');
        const name = model.slice(CUSTOM_MODEL_PREFIX.length);
        return extractor.extract({ ...request, settings: { ...request.settings, model: name } });
      }
      const provider = required.provider as Provider;
      const baseURL = options.baseURLs?.[provider] ?? PROVIDER_INFO[provider].base_url;
      if (credentials?.api_key) return clientFor(baseURL, credentials.api_key).extract(request);
      const host = hostKeys[provider];
      if (!host) throw new ExtractionFailure(`no ${provider} key: add one in Settings`, { retryable: false });
      return clientFor(host.baseURL ?? baseURL, host.apiKey).extract(request);
    },
  };
}
