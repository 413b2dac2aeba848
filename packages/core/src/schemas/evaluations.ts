import { z } from 'zod';
import { described } from './described.js';
import { documentInputSchema, documentSchema, documentSummarySchema, expandField, validateAnnotationsField } from './documents.js';
import { DEFAULT_INFERENCE_SETTINGS, defaultInferenceSettingsSchema, inferenceSettingsInputSchema } from './inference-settings.js';
import { importedIterationInputSchema, iterationSchema, iterationSummarySchema } from './iterations.js';
import { clientId, evaluationIdParam, jsonObject } from './json.js';
import { listQueryFields } from './lists.js';
import { LIMITS } from '../limits.js';

/** POST /v1/evals (docs/spec/interface.md 4.1). Computed fields a client sends (updated_at, ids) are ignored. */
export const createEvaluationInputSchema = z.object({
  id: described(clientId.optional(), 'An id of your choice (1 to 128 of `A-Z a-z 0-9 _ -`), unused in the organization; one is made when left out.'),
  name: described(z.string().min(1, 'name must not be empty').max(512), 'A name for people, 1 to 512 characters.'),
  project_id: described(z.string().max(256).default(''), 'A free grouping key, up to 256 characters. Defaults to `""`.'),
  documents: z.array(documentInputSchema).max(LIMITS.maxDocumentsPerRequest).default([]),
  iterations: z.array(importedIterationInputSchema).max(LIMITS.maxIterationsPerRequest).default([]),
  json_schema: described(jsonObject(), 'A JSON Schema (draft 2020-12) of the data to extract. Descriptions, titles and `x-` fields are the prompts; at most 1 MiB and 64 levels deep.'),
  default_inference_settings: inferenceSettingsInputSchema.default({}),
  ...validateAnnotationsField,
}).meta({ description: 'A new evaluation. `updated_at`, `schema_id` and `schema_data_id` are computed; values sent for them are ignored.' });
export type CreateEvaluationInput = z.input<typeof createEvaluationInputSchema>;

/** PATCH /v1/evals/{evaluation_id} (docs/spec/interface.md 4.2): omitted fields stay. */
export const updateEvaluationInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  name: described(z.string().min(1, 'name must not be empty').max(512).optional(), 'A new name, 1 to 512 characters.'),
  project_id: described(z.string().max(256).optional(), 'A new project_id.'),
  json_schema: described(jsonObject().optional(), 'A JSON Schema (draft 2020-12) of the data to extract. Descriptions, titles and `x-` fields are the prompts; at most 1 MiB and 64 levels deep. With iterations, its schema_data_id must stay the same (409 otherwise).'),
  default_inference_settings: inferenceSettingsInputSchema.optional(),
});
export type UpdateEvaluationInput = z.input<typeof updateEvaluationInputSchema>;

export const evaluationRefInputSchema = z.object({
  evaluation_id: described(evaluationIdParam, 'The evaluation\'s id.'),
});
export type EvaluationRefInput = z.input<typeof evaluationRefInputSchema>;

/** POST /v1/evals/{evaluation_id}/duplicate: the copy's name, else the source's name followed by ` (copy)`. */
export const duplicateEvaluationInputSchema = evaluationRefInputSchema
  .extend({
    name: z
      .string()
      .min(1, 'name must not be empty')
      .max(512)
      .optional()
      .meta({ description: 'The copy\'s name. Default: the evaluation\'s name followed by ` (copy)` (cut to 512 characters).' }),
  })
  .meta({
    description: 'What the copy changes: its name (everything else is the evaluation\'s).',
    examples: [{ evaluation_id: 'eval_invoices', name: 'Invoices, prompt v2' }],
  });
export type DuplicateEvaluationInput = z.input<typeof duplicateEvaluationInputSchema>;

/**
 * `view`: `full` (the default, interface.md 2.1: every document with its content, every iteration whole) or `summary`
 * (the evaluation's own fields, `document_count` and iterations as summaries: no per-document array; docs/spec/service.md, Reads).
 */
export const evaluationViewSchema = z.enum(['full', 'summary']).default('full');
export type EvaluationView = z.output<typeof evaluationViewSchema>;

/** `GET /v1/evals/{evaluation_id}?view=`. */
export const getEvaluationInputSchema = evaluationRefInputSchema.extend({
  view: described(evaluationViewSchema, '`full` (the default: every document with its content, every iteration whole) or `summary` (the evaluation ' +
    'without its documents: `document_count`, iterations as summaries).'),
});
export type GetEvaluationInput = z.input<typeof getEvaluationInputSchema>;

/** GET /v1/evals: cursor pagination with exact-match filters. */
export const listEvaluationsInputSchema = z.object({
  ...listQueryFields,
  project_id: described(z.string().max(256).optional(), 'Only evaluations with this project_id (exact match).'),
  name: described(z.string().max(512).optional(), 'Only evaluations with this name (exact match).'),
  schema_id: described(z.string().max(256).optional(), 'Only evaluations whose json_schema has this schema_id (the exact schema).'),
  schema_data_id: described(z.string().max(256).optional(), 'Only evaluations whose json_schema has this schema_data_id (the same structure).'),
  ...expandField,
});
export type ListEvaluationsInput = z.input<typeof listEvaluationsInputSchema>;

export const evaluationSchema = z.object({
  id: described(z.string(), 'The evaluation\'s id (`eval_...`, or the one the creator chose).'),
  updated_at: z.string(),
  name: described(z.string(), 'A name for people.'),
  project_id: described(z.string(), 'A free grouping key (`""` when none); filter lists with it.'),
  documents: z.array(documentSchema),
  iterations: z.array(iterationSchema),
  json_schema: described(jsonObject(), 'A JSON Schema (draft 2020-12) of the data to extract. Descriptions, titles and `x-` fields are the prompts; at most 1 MiB and 64 levels deep.'),
  default_inference_settings: defaultInferenceSettingsSchema,
  schema_data_id: described(z.string(), '`sch_data_id_` and a hash of the structure of the JSON schema (types, properties, items), without descriptions, titles, defaults, examples, `x-` fields or `required`. Two schemas that only word their prompts differently share it; once an evaluation has iterations it cannot change (409).'),
  schema_id: described(z.string(), '`sch_id_` and a hash of the JSON schema exactly as given: changes with any change, descriptions and titles included.'),
}).meta({ description: 'Documents with ground-truth annotations, a JSON schema, and the iterations run over them.' });
export type Evaluation = z.infer<typeof evaluationSchema>;

/**
 * An evaluation in a list (docs/spec/service.md, Reads): documents as summaries (whole documents with
 * `?expand=documents`) and iterations as summaries, so a list never carries file contents or per-document metrics.
 */
export const evaluationSummarySchema = evaluationSchema.extend({
  document_count: described(z.number().int(), 'How many documents the evaluation holds.'),
  /** Documents whose annotation gives no ground truth (`{}` or only empty values): in no mean until annotated. */
  unlabeled_count: described(z.number().int(), 'Documents without ground truth (annotation `{}` or only empty values): in no mean until annotated.'),
  documents: z.array(z.union([documentSchema, documentSummarySchema])),
  iterations: z.array(iterationSummarySchema),
}).meta({ description: 'An evaluation in a list: documents and iterations as summaries.' });
export type EvaluationSummary = z.infer<typeof evaluationSummarySchema>;

/**
 * One evaluation without its documents (`GET /v1/evals/{id}?view=summary`, tRPC `evals.getSummary`): a list's
 * {@link EvaluationSummary} less `documents`, so its cost does not grow with the documents: the evaluation record, the
 * documents' count and two small reads per iteration (docs/spec/service.md, Reads).
 */
export const evaluationOverviewSchema = evaluationSummarySchema.omit({ documents: true }).meta({
  examples: [
    {
      id: 'eval_invoices_copy',
      updated_at: '2026-11-23T19:24:03.102Z',
      name: 'Invoices (copy)',
      project_id: 'proj_finance',
      document_count: 1,
      unlabeled_count: 0,
      iterations: [],
      json_schema: { type: 'object', properties: { total: { type: 'number', description: 'The amount due' } } },
      default_inference_settings: { ...DEFAULT_INFERENCE_SETTINGS, model: 'local-rules' },
      schema_data_id: 'sch_data_id_8f0f5ad2bd2e2a1e',
      schema_id: 'sch_id_5d7c3c2a9e1b0f44',
    },
  ],
});
export type EvaluationOverview = z.infer<typeof evaluationOverviewSchema>;

/**
 * POST /v1/evals/sample: no input. The sample is the host's (`DocevalsOptions.sample`); the standalone server's is a few
 * dozen generated invoices, receipts and forms with ground truth and two imported iterations.
 */
export const loadSampleInputSchema = z.object({}).meta({ description: 'Nothing: the host decides what the sample holds.', examples: [{}] });
export type LoadSampleInput = z.input<typeof loadSampleInputSchema>;
