import { z } from 'zod';
import { described } from './described.js';
import { PROVIDERS } from '../secrets/providers.js';

/** A provider an organization stores a key for: `OpenAI`, `Anthropic`, `Gemini`, `xAI` (the SDK's spelling). */
export const providerSchema = z.enum(PROVIDERS, {
  error: () => `provider must be one of ${PROVIDERS.map((p) => `"${p}"`).join(', ')}`,
});

const apiKey = z
  .string()
  .min(1, 'api_key must not be empty')
  .max(4096, 'api_key is at most 4096 characters')
  .refine((v) => v.trim() === v && !/[\r\n]/.test(v), 'api_key must not have surrounding spaces or line breaks');

/** POST /v1/secrets/external_api_keys (the reference SDK's `secrets.external_api_keys.create`). */
export const createExternalApiKeyInputSchema = z.object({
  provider: described(providerSchema, 'The provider: `OpenAI`, `Anthropic`, `Gemini` or `xAI` (this spelling).'),
  api_key: described(apiKey, 'The key, stored encrypted (AES-256-GCM under the server\'s master key) and never answered.'),
}).meta({ description: 'A provider key to store for the calling organization.' });
export type CreateExternalApiKeyInput = z.input<typeof createExternalApiKeyInputSchema>;

/** GET / DELETE /v1/secrets/external_api_keys/{provider}. */
export const externalApiKeyRefInputSchema = z.object({
  provider: described(providerSchema, 'The provider: `OpenAI`, `Anthropic`, `Gemini` or `xAI` (this spelling).'),
});
export type ExternalApiKeyRefInput = z.input<typeof externalApiKeyRefInputSchema>;

/** What is known of a stored key: never the key. `last_updated` is null when none is configured. */
export const externalApiKeySchema = z.object({
  provider: described(providerSchema, 'The provider: `OpenAI`, `Anthropic`, `Gemini` or `xAI` (this spelling).'),
  is_configured: described(z.boolean(), 'Whether the organization stored a key for it (the key itself is never answered).'),
  last_updated: described(z.string().nullable(), 'When the organization last set it; null when none is configured.'),
}).meta({ description: 'What is known of an organization\'s key for a provider: never the key.' });
export type ExternalApiKey = z.infer<typeof externalApiKeySchema>;

/** GET /v1/secrets/external_api_keys: every provider, configured or not (the SDK reads a plain array). */
export const externalApiKeyListSchema = z.array(externalApiKeySchema);

/** The SDK's `delete` answer. */
export const externalApiKeyDeletedSchema = z.object({
  provider: described(providerSchema, 'The provider: `OpenAI`, `Anthropic`, `Gemini` or `xAI` (this spelling).'),
  deleted: described(z.boolean(), 'Whether there was a key to remove.'),
  success: described(z.literal(true), 'Always true.'),
}).meta({ description: 'A key removal\'s answer.' });
export type ExternalApiKeyDeleted = z.infer<typeof externalApiKeyDeletedSchema>;

/** PUT /v1/secrets/custom_endpoint: the organization's own OpenAI-compatible endpoint, its models `custom/<name>`. */
export const setCustomEndpointInputSchema = z.object({
  base_url: described(z
    .string()
    .max(2048)
    .refine((v) => {
      try {
        const url = new URL(v);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'base_url must be an http(s) URL, such as http://localhost:11434/v1'), 'An http(s) OpenAI-compatible base URL, such as `http://localhost:11434/v1`.'),
  /** Optional: a local server (Ollama, vLLM) may need none. */
  api_key: described(apiKey.optional(), 'Its key, when it needs one: stored encrypted, never answered.'),
  /** The model names it serves, run as `custom/<name>`. */
  models: described(z.array(z.string().min(1).max(256).regex(/^\S+$/, 'a model name has no spaces')).min(1).max(100), 'The model names it serves; they run as `custom/<name>`.'),
}).meta({ description: 'The organization\'s own OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, Azure).' });
export type SetCustomEndpointInput = z.input<typeof setCustomEndpointInputSchema>;

/** The custom endpoint as a caller may see it: its base URL (credentials in it are masked) and models; never the key. */
export const customEndpointSchema = z.object({
  is_configured: described(z.boolean(), 'Whether the organization has one.'),
  base_url: described(z.string().nullable(), 'Its base URL (a user or password in it masked); null when none.'),
  models: described(z.array(z.string()), 'The model names it serves, run as `custom/<name>`.'),
  has_api_key: described(z.boolean(), 'Whether a key was stored with it (never answered).'),
  last_updated: described(z.string().nullable(), 'When the organization last set it; null when none is configured.'),
}).meta({ description: 'The organization\'s own OpenAI-compatible endpoint: never its key.' });
export type CustomEndpoint = z.infer<typeof customEndpointSchema>;
