import { z } from 'zod';
import * as schemas from '../schemas/index.js';
import { operation } from './define.js';

const NO_KEY = ' Without a master key on the server: 501 `not_configured`, saying how to configure one.';

/**
 * Organization secrets (docs/secrets.md): each organization's provider keys, the reference SDK's
 * `secrets.external_api_keys` (exactly its paths and shapes), and its own OpenAI-compatible endpoint. No answer
 * carries a key.
 */
export const secretOperations = {
  'secrets.externalApiKeys.create': operation({
    procedure: 'mutation',
    input: schemas.createExternalApiKeyInputSchema,
    output: schemas.externalApiKeySchema,
    call: (d, org, input) => d.secrets.externalApiKeys.create(org, input),
    rest: {
      method: 'post',
      path: '/v1/secrets/external_api_keys',
      operationId: 'createExternalApiKey',
      tag: 'Secrets',
      summary: 'Store (or replace) the organization\'s key for a provider',
      description:
        'Stores the calling organization\'s key for `OpenAI`, `Anthropic`, `Gemini` or `xAI`, encrypted at rest ' +
        '(AES-256-GCM under the server\'s master key), replacing the one it had. Its iterations and processors then ' +
        'run that provider\'s models with it. Answers whether a key is configured, never the key.' + NO_KEY,
      input: 'body',
    },
  }),
  'secrets.externalApiKeys.get': operation({
    procedure: 'query',
    input: schemas.externalApiKeyRefInputSchema,
    output: schemas.externalApiKeySchema,
    call: (d, org, input) => d.secrets.externalApiKeys.get(org, input),
    rest: {
      method: 'get',
      path: '/v1/secrets/external_api_keys/{provider}',
      operationId: 'getExternalApiKey',
      tag: 'Secrets',
      summary: 'Whether the organization has a key for a provider',
      description: '`is_configured` and `last_updated` for one provider (false and null when none), never the key.' + NO_KEY,
    },
  }),
  'secrets.externalApiKeys.list': operation({
    procedure: 'query',
    input: z.void(),
    output: schemas.externalApiKeyListSchema,
    call: (d, org) => d.secrets.externalApiKeys.list(org),
    rest: {
      method: 'get',
      path: '/v1/secrets/external_api_keys',
      operationId: 'listExternalApiKeys',
      tag: 'Secrets',
      summary: 'Every provider, configured or not',
      description: 'One entry per provider (`OpenAI`, `Anthropic`, `Gemini`, `xAI`), configured or not, as an array; never a key.' + NO_KEY,
    },
  }),
  'secrets.externalApiKeys.delete': operation({
    procedure: 'mutation',
    input: schemas.externalApiKeyRefInputSchema,
    output: schemas.externalApiKeyDeletedSchema,
    call: (d, org, input) => d.secrets.externalApiKeys.delete(org, input),
    rest: {
      method: 'delete',
      path: '/v1/secrets/external_api_keys/{provider}',
      operationId: 'deleteExternalApiKey',
      tag: 'Secrets',
      summary: 'Remove the organization\'s key for a provider',
      description:
        'Removes the key; the provider\'s models then run with the host\'s key, or are a 422 naming the provider. ' +
        '`deleted` is false when there was none.' + NO_KEY,
    },
  }),
  'secrets.customEndpoint.set': operation({
    procedure: 'mutation',
    input: schemas.setCustomEndpointInputSchema,
    output: schemas.customEndpointSchema,
    call: (d, org, input) => d.secrets.customEndpoint.set(org, input),
    rest: {
      method: 'put',
      path: '/v1/secrets/custom_endpoint',
      operationId: 'setCustomEndpoint',
      tag: 'Secrets',
      summary: 'Set the organization\'s own OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, Azure)',
      description:
        'A base URL, an optional key and the model names it serves, encrypted at rest like the keys. Its models run ' +
        'as `custom/<name>` (`custom/llama3.1`), with this organization\'s key only.' + NO_KEY,
      input: 'body',
    },
  }),
  'secrets.customEndpoint.get': operation({
    procedure: 'query',
    input: z.void(),
    output: schemas.customEndpointSchema,
    call: (d, org) => d.secrets.customEndpoint.get(org),
    rest: {
      method: 'get',
      path: '/v1/secrets/custom_endpoint',
      operationId: 'getCustomEndpoint',
      tag: 'Secrets',
      summary: 'The organization\'s custom endpoint: its URL and models, whether it has a key',
      description: 'The base URL (a user or password in it masked), the models and `has_api_key`; never the key.' + NO_KEY,
    },
  }),
  'secrets.customEndpoint.delete': operation({
    procedure: 'mutation',
    input: z.void(),
    output: z.object({ deleted: z.boolean(), success: z.literal(true) }),
    call: (d, org) => d.secrets.customEndpoint.delete(org),
    rest: {
      method: 'delete',
      path: '/v1/secrets/custom_endpoint',
      operationId: 'deleteCustomEndpoint',
      tag: 'Secrets',
      summary: 'Remove the organization\'s custom endpoint',
      description: 'Removes it; its `custom/*` models are then a 422.' + NO_KEY,
    },
  }),
} as const;
