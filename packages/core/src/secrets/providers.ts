import { modelMatches } from '../extraction/model-routing.js';

/** The model providers an organization can store a key for (the reference SDK's `ExternalAPIKey.provider`). */
export const PROVIDERS = ['OpenAI', 'Anthropic', 'Gemini', 'xAI'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** The organization's own OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, Azure): its models are `custom/<name>`. */
export const CUSTOM_PROVIDER = 'custom';
/** The prefix of a model served by the organization's custom endpoint: `custom/llama3.1` runs `llama3.1` there. */
export const CUSTOM_MODEL_PREFIX = 'custom/';

/** What docevals knows of a provider: its OpenAI-compatible endpoint, its model names, the host's variable. */
export interface ProviderInfo {
  name: Provider;
  /** The provider's OpenAI-compatible Chat Completions base URL. */
  base_url: string;
  /** The model names routed to it (`*` globs, RegExps). */
  models: ReadonlyArray<string | RegExp>;
  /** Models listed by `GET /v1/models` when the provider is available to an organization (current ones). */
  listed: readonly string[];
  /** The host's environment variable that serves as every organization's fallback key. */
  env: string;
}

/**
 * The providers, in routing order. Every one is reached with the OpenAI SDK at its OpenAI-compatible base URL.
 *
 * @example
 * providerOfModel('claude-sonnet-4-5'); // 'Anthropic'
 * providerOfModel('o4-mini'); // 'OpenAI'
 * providerOfModel('local-rules'); // null
 */
export const PROVIDER_INFO: Readonly<Record<Provider, ProviderInfo>> = Object.freeze({
  OpenAI: {
    name: 'OpenAI',
    base_url: 'https://api.openai.com/v1',
    models: ['gpt-*', /^o\d/, 'chatgpt-*'],
    listed: ['gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4o', 'gpt-4o-mini', 'o3', 'o4-mini'],
    env: 'OPENAI_API_KEY',
  },
  Anthropic: {
    name: 'Anthropic',
    base_url: 'https://api.anthropic.com/v1/',
    models: ['claude-*'],
    listed: ['claude-opus-4-1', 'claude-sonnet-4-5', 'claude-haiku-4-5'],
    env: 'ANTHROPIC_API_KEY',
  },
  Gemini: {
    name: 'Gemini',
    base_url: 'https://generativelanguage.googleapis.com/v1beta/openai/',
    models: ['gemini-*'],
    listed: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite'],
    env: 'GEMINI_API_KEY',
  },
  xAI: {
    name: 'xAI',
    base_url: 'https://api.x.ai/v1',
    models: ['grok-*'],
    listed: ['grok-4', 'grok-3', 'grok-3-mini'],
    env: 'XAI_API_KEY',
  },
});

/** The provider whose model names match `model`; null for another name (`local-rules`, a custom model). */
export function providerOfModel(model: string): Provider | null {
  for (const name of PROVIDERS) {
    if (PROVIDER_INFO[name].models.some((pattern) => modelMatches(pattern, model))) return name;
  }
  return null;
}

/** Whether `value` is one of {@link PROVIDERS} (exact spelling, as the SDK sends it). */
export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}
