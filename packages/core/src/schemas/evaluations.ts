import { z } from 'zod';
import { documentInputSchema, documentSchema, documentSummarySchema, expandField, validateAnnotationsField } from './documents.js';
import { DEFAULT_INFERENCE_SETTINGS, defaultInferenceSettingsSchema, inferenceSettingsInputSchema } from './inference-settings.js';
import { importedIterationInputSchema, iterationSchema, iterationSummarySchema } from './iterations.js';
import { clientId, evaluationIdParam, jsonObject } from './json.js';
import { listQueryFields } from './lists.js';
import { LIMITS } from '../limits.js';

/** POST /v1/evals (docs/spec/interface.md 4.1). Computed fields a client sends (updated_at, ids) are ignored. */
export const createEvaluationInputSchema = z.object({
  id: clientId.optional(),
  name: z.string().min(1, 'name must not be empty').max(512),
  project_id: z.string().max(256).default(''),
  documents: z.array(documentInputSchema).max(LIMITS.maxDocumentsPerRequest).default([]),
  iterations: z.array(importedIterationInputSchema).max(LIMITS.maxIterationsPerRequest).default([]),
  json_schema: jsonObject(),
  default_inference_settings: inferenceSettingsInputSchema.default({}),
  ...validateAnnotationsField,
});
export type CreateEvaluationInput = z.input<typeof createEvaluationInputSchema>;

/** PATCH /v1/evals/{evaluation_id} (docs/spec/interface.md 4.2): omitted fields stay. */
export const updateEvaluationInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  name: z.string().min(1, 'name must not be empty').max(512).optional(),
  project_id: z.string().max(256).optional(),
  json_schema: jsonObject().optional(),
  default_inference_settings: inferenceSettingsInputSchema.optional(),
});
export type UpdateEvaluationInput = z.input<typeof updateEvaluationInputSchema>;

export const evaluationRefInputSchema = z.object({ evaluation_id: evaluationIdParam });
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
export const getEvaluationInputSchema = evaluationRefInputSchema.extend({ view: evaluationViewSchema });
export type GetEvaluationInput = z.input<typeof getEvaluationInputSchema>;

/** GET /v1/evals: cursor pagination with exact-match filters. */
export const listEvaluationsInputSchema = z.object({
  ...listQueryFields,
  project_id: z.string().max(256).optional(),
  name: z.string().max(512).optional(),
  schema_id: z.string().max(256).optional(),
  schema_data_id: z.string().max(256).optional(),
  ...expandField,
});
export type ListEvaluationsInput = z.input<typeof listEvaluationsInputSchema>;

export const evaluationSchema = z.object({
  id: z.string(),
  updated_at: z.string(),
  name: z.string(),
  project_id: z.string(),
  documents: z.array(documentSchema),
  iterations: z.array(iterationSchema),
  json_schema: jsonObject(),
  default_inference_settings: defaultInferenceSettingsSchema,
  schema_data_id: z.string(),
  schema_id: z.string(),
});
export type Evaluation = z.infer<typeof evaluationSchema>;

/**
 * An evaluation in a list (docs/spec/service.md, Reads): documents as summaries (whole documents with
 * `?expand=documents`) and iterations as summaries, so a list never carries file contents or per-document metrics.
 */
export const evaluationSummarySchema = evaluationSchema.extend({
  document_count: z.number().int(),
  /** Documents whose annotation gives no ground truth (`{}` or only empty values): in no mean until annotated. */
  unlabeled_count: z.number().int(),
  documents: z.array(z.union([documentSchema, documentSummarySchema])),
  iterations: z.array(iterationSummarySchema),
});
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
