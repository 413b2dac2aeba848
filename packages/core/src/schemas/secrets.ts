import { z } from 'zod';
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
export const createExternalApiKeyInputSchema = z.object({ provider: providerSchema, api_key: apiKey });
export type CreateExternalApiKeyInput = z.input<typeof createExternalApiKeyInputSchema>;

/** GET / DELETE /v1/secrets/external_api_keys/{provider}. */
export const externalApiKeyRefInputSchema = z.object({ provider: providerSchema });
export type ExternalApiKeyRefInput = z.input<typeof externalApiKeyRefInputSchema>;

/** What is known of a stored key: never the key. `last_updated` is null when none is configured. */
export const externalApiKeySchema = z.object({
  provider: providerSchema,
  is_configured: z.boolean(),
  last_updated: z.string().nullable(),
});
export type ExternalApiKey = z.infer<typeof externalApiKeySchema>;

/** GET /v1/secrets/external_api_keys: every provider, configured or not (the SDK reads a plain array). */
export const externalApiKeyListSchema = z.array(externalApiKeySchema);

/** The SDK's `delete` answer. */
export const externalApiKeyDeletedSchema = z.object({ provider: providerSchema, deleted: z.boolean(), success: z.literal(true) });
export type ExternalApiKeyDeleted = z.infer<typeof externalApiKeyDeletedSchema>;

/** PUT /v1/secrets/custom_endpoint: the organization's own OpenAI-compatible endpoint, its models `custom/<name>`. */
export const setCustomEndpointInputSchema = z.object({
  base_url: z
    .string()
    .max(2048)
    .refine((v) => {
      try {
        const url = new URL(v);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'base_url must be an http(s) URL, such as http://localhost:11434/v1'),
  /** Optional: a local server (Ollama, vLLM) may need none. */
  api_key: apiKey.optional(),
  /** The model names it serves, run as `custom/<name>`. */
  models: z.array(z.string().min(1).max(256).regex(/^\S+$/, 'a model name has no spaces')).min(1).max(100),
});
export type SetCustomEndpointInput = z.input<typeof setCustomEndpointInputSchema>;

/** The custom endpoint as a caller may see it: its base URL (credentials in it are masked) and models; never the key. */
export const customEndpointSchema = z.object({
  is_configured: z.boolean(),
  base_url: z.string().nullable(),
  models: z.array(z.string()),
  has_api_key: z.boolean(),
  last_updated: z.string().nullable(),
});
export type CustomEndpoint = z.infer<typeof customEndpointSchema>;
