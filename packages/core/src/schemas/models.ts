import { z } from 'zod';
import { described } from './described.js';
import { modalitySchema } from './inference-settings.js';

/** One model entry an extractor of this host serves (GET /v1/models). */
export const modelSchema = z.object({
  /** The exact model name, or the pattern as registered: a `*` glob (`gpt-*`) or a RegExp as `/source/flags`. */
  id: described(z.string(), 'The exact model name, or the pattern as registered: a `*` glob (`gpt-*`) or a RegExp written `/source/flags`.'),
  /** The `name` of the extractor that serves it. */
  extractor: described(z.string(), 'The `name` of the extractor that serves it.'),
  /** True when `id` is a pattern (a glob or a RegExp) that matches many names, false for one exact name. */
  pattern: described(z.boolean(), 'True when `id` is a pattern that matches many names, false for one exact name.'),
  /** The modalities the extractor reads with this model; null when the extractor does not declare them. */
  modalities: described(z.array(modalitySchema).nullable(), 'The modalities the extractor reads with this model (`text`, `image`, `image+text`, `native`); null when the extractor does not say.'),
  /**
   * The provider that serves it with this organization's key or the host's (`OpenAI`, `Anthropic`, `Gemini`, `xAI`,
   * `custom`); null for a model that needs no provider key (`local-rules`, a host's own extractor).
   */
  provider: described(z.string().nullable().optional(), 'The provider that serves it for the calling organization, with its own key or the host\'s (`OpenAI`, `Anthropic`, ' +
    '`Gemini`, `xAI`, `custom` for its own endpoint); null for a model that needs no provider key.'),
}).meta({ description: 'A model (or a pattern of model names) the calling organization can run now on this host.' });
export type Model = z.infer<typeof modelSchema>;

/** GET /v1/models: every entry, in routing order (the first extractor serving a name wins). */
export const modelListSchema = z.object({ data: z.array(modelSchema) }).meta({ description: 'The models this host serves.' });
export type ModelList = z.infer<typeof modelListSchema>;
