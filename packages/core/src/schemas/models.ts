import { z } from 'zod';
import { modalitySchema } from './inference-settings.js';

/** One model entry an extractor of this host serves (GET /v1/models). */
export const modelSchema = z.object({
  /** The exact model name, or the pattern as registered: a `*` glob (`gpt-*`) or a RegExp as `/source/flags`. */
  id: z.string(),
  /** The `name` of the extractor that serves it. */
  extractor: z.string(),
  /** True when `id` is a pattern (a glob or a RegExp) that matches many names, false for one exact name. */
  pattern: z.boolean(),
  /** The modalities the extractor reads with this model; null when the extractor does not declare them. */
  modalities: z.array(modalitySchema).nullable(),
  /**
   * The provider that serves it with this organization's key or the host's (`OpenAI`, `Anthropic`, `Gemini`, `xAI`,
   * `custom`); null for a model that needs no provider key (`local-rules`, a host's own extractor).
   */
  provider: z.string().nullable().optional(),
});
export type Model = z.infer<typeof modelSchema>;

/** GET /v1/models: every entry, in routing order (the first extractor serving a name wins). */
export const modelListSchema = z.object({ data: z.array(modelSchema) });
export type ModelList = z.infer<typeof modelListSchema>;
