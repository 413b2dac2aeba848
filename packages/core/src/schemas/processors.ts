import { z } from 'zod';
import { described } from './described.js';
import { inferenceSettingsInputSchema, inferenceSettingsSchema, settingsFields } from './inference-settings.js';
import { clientId, jsonObject, processorIdParam } from './json.js';
import { listQueryFields } from './lists.js';
import { apiCostSchema, metadataSchema } from './metadata.js';

/** POST /v1/processors (docs/spec/interface.md 4.6): name, model and json_schema required; the rest defaults. */
export const createProcessorInputSchema = z.object({
  id: described(clientId.optional(), 'An id of your choice (1 to 128 of `A-Z a-z 0-9 _ -`), unused in the organization; one is made when left out.'),
  name: described(z.string().min(1, 'name must not be empty').max(512), 'A name for people, 1 to 512 characters.'),
  ...inferenceSettingsInputSchema.shape,
  model: settingsFields.model,
  json_schema: described(jsonObject(), 'A JSON Schema (draft 2020-12) of the data to extract. Descriptions, titles and `x-` fields are the prompts; at most 1 MiB and 64 levels deep.'),
}).meta({ description: 'A new processor: name, model and json_schema required, the other settings default.' });
export type CreateProcessorInput = z.input<typeof createProcessorInputSchema>;

/** PUT /v1/processors/{processor_id} (docs/spec/interface.md 4.7): changes the fields it carries, keeps the others. */
export const updateProcessorInputSchema = z.object({
  processor_id: processorIdParam,
  name: described(createProcessorInputSchema.shape.name.optional(), 'A name for people, 1 to 512 characters.'),
  ...inferenceSettingsInputSchema.shape,
  json_schema: described(jsonObject().optional(), 'A JSON Schema (draft 2020-12) of the data to extract. Descriptions, titles and `x-` fields are the prompts; at most 1 MiB and 64 levels deep.'),
});
export type UpdateProcessorInput = z.input<typeof updateProcessorInputSchema>;

export const processorRefInputSchema = z.object({
  processor_id: described(processorIdParam, 'The processor\'s id.'),
});
export type ProcessorRefInput = z.input<typeof processorRefInputSchema>;

export const listProcessorsInputSchema = z.object({
  ...listQueryFields,
  name: described(z.string().max(512).optional(), 'Only processors with this name (exact match).'),
  modality: described(settingsFields.modality.optional(), 'Only processors with this modality.'),
  model: described(z.string().max(256).optional(), 'Only processors with this model (exact match).'),
  schema_id: described(z.string().max(256).optional(), 'Only processors whose json_schema has this schema_id (the exact schema).'),
  schema_data_id: described(z.string().max(256).optional(), 'Only processors whose json_schema has this schema_data_id (the same structure).'),
});
export type ListProcessorsInput = z.input<typeof listProcessorsInputSchema>;

/** POST /v1/processors/{processor_id}/submit: one document as a data URL. */
export const submitProcessorInputSchema = z.object({
  processor_id: processorIdParam,
  document: z.object({
    filename: described(z.string().min(1).max(1024), 'The file name; its extension and the data URL\'s media type tell the file type.'),
    url: described(z.string(), 'The content as a base64 data URL (`data:application/pdf;base64,...`).'),
  }),
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
}).meta({ description: 'A processor\'s extraction of one document: `{prediction, metadata}` and, beside them, the reference SDK\'s chat completion shape (`RetabParsedChatCompletion`).' });
export type SubmitResult = z.infer<typeof submitResultSchema>;

export const processorSchema = inferenceSettingsSchema.extend({
  object: described(z.literal('processor'), 'Always `processor`.'),
  id: described(z.string(), 'The processor\'s id (`proc_...`, or the one the creator chose).'),
  updated_at: z.string(),
  name: described(z.string(), 'A name for people.'),
  json_schema: described(jsonObject(), 'A JSON Schema (draft 2020-12) of the data to extract. Descriptions, titles and `x-` fields are the prompts; at most 1 MiB and 64 levels deep.'),
  organization_id: described(z.string(), 'The organization that owns the processor (the one of the key that created it).'),
  schema_data_id: described(z.string(), '`sch_data_id_` and a hash of the structure of the JSON schema (types, properties, items), without descriptions, titles, defaults, examples, `x-` fields or `required`. Two schemas that only word their prompts differently share it; once an evaluation has iterations it cannot change (409).'),
  schema_id: described(z.string(), '`sch_id_` and a hash of the JSON schema exactly as given: changes with any change, descriptions and titles included.'),
}).meta({ description: 'A named, reusable extraction configuration.' });
export type Processor = z.infer<typeof processorSchema>;
