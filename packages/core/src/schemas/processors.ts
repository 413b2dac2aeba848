import { z } from 'zod';
import { described } from './described.js';
import { inferenceSettingsInputSchema, inferenceSettingsSchema, settingsFields } from './inference-settings.js';
import { clientId, jsonObject, processorIdParam } from './json.js';
import { listQueryFields } from './lists.js';
import { apiCostSchema, metadataSchema } from './metadata.js';

/** POST /v1/processors (docs/spec/interface.md 4.6): name, model and json_schema required; the rest defaults. */
export const createProcessorInputSchema = z.object({
  id: clientId.optional(),
  name: z.string().min(1, 'name must not be empty').max(512),
  ...inferenceSettingsInputSchema.shape,
  model: settingsFields.model,
  json_schema: jsonObject(),
});
export type CreateProcessorInput = z.input<typeof createProcessorInputSchema>;

/** PUT /v1/processors/{processor_id} (docs/spec/interface.md 4.7): changes the fields it carries, keeps the others. */
export const updateProcessorInputSchema = z.object({
  processor_id: processorIdParam,
  name: createProcessorInputSchema.shape.name.optional(),
  ...inferenceSettingsInputSchema.shape,
  json_schema: jsonObject().optional(),
});
export type UpdateProcessorInput = z.input<typeof updateProcessorInputSchema>;

export const processorRefInputSchema = z.object({ processor_id: processorIdParam });
export type ProcessorRefInput = z.input<typeof processorRefInputSchema>;

export const listProcessorsInputSchema = z.object({
  ...listQueryFields,
  name: z.string().max(512).optional(),
  modality: settingsFields.modality.optional(),
  model: z.string().max(256).optional(),
  schema_id: z.string().max(256).optional(),
  schema_data_id: z.string().max(256).optional(),
});
export type ListProcessorsInput = z.input<typeof listProcessorsInputSchema>;

/** POST /v1/processors/{processor_id}/submit: one document as a data URL. */
export const submitProcessorInputSchema = z.object({
  processor_id: processorIdParam,
  document: z.object({ filename: z.string().min(1).max(1024), url: z.string() }),
});
export type SubmitProcessorInput = z.input<typeof submitProcessorInputSchema>;

/**
 * A processor's answer: `{prediction, metadata}`, and beside them the reference SDK's `RetabParsedChatCompletion`
 * (an OpenAI chat completion whose `choices[0].message.parsed` is the prediction, with `likelihoods`, `usage` and
 * `api_cost`), so the SDK's `processors.submit` parses it.
 */
export const submitResultSchema = z.object({
  prediction: described(jsonObject(), 'The extracted data, in the shape of the processor\'s json_schema.'),
  metadata: metadataSchema.nullable(),
  id: described(z.string(), 'The extraction\'s id (the chat completion\'s).'),
  object: described(z.literal('chat.completion'), 'Always `chat.completion`.'),
  created: described(z.number().int(), 'When it was made, in Unix seconds.'),
  model: described(z.string(), 'The processor\'s model.'),
  choices: z.array(
    z.object({
      index: described(z.number().int(), 'Always 0.'),
      message: z.object({
        role: described(z.literal('assistant'), 'Always `assistant`.'),
        content: described(z.string(), 'The prediction as JSON text.'),
        parsed: described(jsonObject(), 'The prediction.'),
        refusal: described(z.null(), 'Always null.'),
      }),
      finish_reason: described(z.literal('stop'), 'Always `stop`.'),
      logprobs: described(z.null(), 'Always null (per-field confidences are in `likelihoods`).'),
    }),
  ),
  usage: z
    .object({
      prompt_tokens: described(z.number().int(), 'Input tokens.'),
      completion_tokens: described(z.number().int(), 'Output tokens.'),
      total_tokens: described(z.number().int(), 'Their sum.'),
    })
    .nullable(),
  likelihoods: described(jsonObject().nullable(), 'Per-field confidences; null when unknown.'),
  api_cost: apiCostSchema.nullable(),
  extraction_id: described(z.string().nullable(), 'The extraction\'s id, as in `metadata`.'),
});
export type SubmitResult = z.infer<typeof submitResultSchema>;

export const processorSchema = inferenceSettingsSchema.extend({
  object: z.literal('processor'),
  id: z.string(),
  updated_at: z.string(),
  name: z.string(),
  json_schema: jsonObject(),
  organization_id: z.string(),
  schema_data_id: z.string(),
  schema_id: z.string(),
});
export type Processor = z.infer<typeof processorSchema>;
