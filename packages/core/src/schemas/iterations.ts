import { z } from 'zod';
import { described } from './described.js';
import { inferenceSettingsInputSchema, inferenceSettingsSchema } from './inference-settings.js';
import { documentIdParam, evaluationIdParam, idParam, iterationIdParam, jsonObject } from './json.js';
import { listMetadataSchema } from './lists.js';
import { metadataSchema } from './metadata.js';
import { LIMITS } from '../limits.js';

/** A prediction in a response: one per document of the evaluation, in document order (docs/spec/service.md). */
export const predictionSchema = z.object({
  document_id: z.string(),
  prediction: jsonObject(),
  metadata: metadataSchema.nullable(),
  /**
   * Whether the prediction validates against the iteration's json_schema (a malformed prediction is still scored
   * field by field); null when there is no prediction to check (failed, pending) or it was stored before the check.
   */
  schema_valid: z.boolean().nullable().optional(),
  /** The first issues (at most 5) when `schema_valid` is false. */
  schema_issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type Prediction = z.infer<typeof predictionSchema>;

const similarityMap = z.record(z.string(), z.unknown());

export const itemMetricSchema = z.object({
  id: z.string(),
  name: z.string(),
  similarity: z.number(),
  similarities: similarityMap,
  flat_similarities: z.record(z.string(), z.number()),
  aligned_similarity: z.number(),
  aligned_similarities: similarityMap,
  aligned_flat_similarities: z.record(z.string(), z.number()),
  /** Only when alignment ran out of its work budget: the aligned figures are the positional ones. */
  alignment: z.literal('positional_fallback').optional(),
  /** Only when the strings ran out of their Levenshtein work budget: strings past it score 1 if equal, else 0. */
  levenshtein: z.literal('equality_fallback').optional(),
});
export type ItemMetric = z.infer<typeof itemMetricSchema>;

/**
 * Documents of an iteration by outcome (docs/spec/metrics.md section 5): `unlabeled` (no ground truth, whatever the
 * extraction did), and among the labeled ones `succeeded`, `failed` and `pending` (no outcome yet).
 */
export const outcomeCountsSchema = z.object({
  documents: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  unlabeled: z.number().int(),
  pending: z.number().int(),
});
export type OutcomeCounts = z.infer<typeof outcomeCountsSchema>;

export const metricResultsSchema = z.object({
  item_metrics: z.array(itemMetricSchema),
  /** Over the labeled documents that finished, a failed one counting 0 (docs/spec/metrics.md section 5). */
  mean_similarity: z.number(),
  aligned_mean_similarity: z.number(),
  metric_type: z.literal('levenshtein'),
  /** Over the labeled documents that succeeded only; null when none did. */
  succeeded_mean_similarity: z.number().nullable(),
  succeeded_aligned_mean_similarity: z.number().nullable(),
  /** succeeded / (succeeded + failed) over labeled documents; null when none finished. */
  coverage: z.number().nullable(),
  /** Share of the succeeded predictions that validate against the iteration's json_schema; null when none. */
  schema_valid_rate: z.number().nullable(),
  counts: outcomeCountsSchema,
  /** Labeled documents have no outcome yet (the run goes on, or documents were added since): the figures cover the finished ones. */
  partial: z.boolean(),
});
export type MetricResults = z.infer<typeof metricResultsSchema>;

export const iterationStatusSchema = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);

/** Documents of an iteration by outcome; `pending` ones have no prediction yet (added later, or not run yet). */
export const iterationProgressSchema = z.object({
  total: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  pending: z.number().int(),
});
export type IterationProgress = z.infer<typeof iterationProgressSchema>;

/** Summed over the iteration's predictions: tokens and `api_cost.value` as the extractors reported them. */
export const iterationUsageSchema = z.object({ input_tokens: z.number(), output_tokens: z.number(), cost: z.number() });

/**
 * What people call an iteration (an experiment): a name, what it tried, tags to find it by. Labels only: they change
 * nothing of the run, and may be changed at any time, even while it runs (docs/decisions.md, Experiments).
 */
export const iterationLabelsInputSchema = z.object({
  name: described(
    z.string().trim().min(1, 'name must not be empty: send null to clear it').max(200).nullable().optional(),
    'A name for the iteration, shown instead of its id (at most 200 characters); null clears it.',
  ),
  description: described(
    z.string().max(4000).nullable().optional(),
    'What the iteration tried, for people (at most 4,000 characters); null clears it.',
  ),
  tags: described(
    z
      .array(z.string().trim().min(1).max(64))
      .max(32)
      .refine((tags) => new Set(tags).size === tags.length, 'tags must not repeat')
      .optional(),
    'Up to 32 tags (1-64 characters each, no repeats); `[]` clears them.',
  ),
});

/** The labels as answered: `null` / `[]` where none were given. */
const iterationLabelsSchema = z.object({
  name: described(z.string().nullable(), 'The iteration\'s name, or null.'),
  description: described(z.string().nullable(), 'What the iteration tried, or null.'),
  tags: described(z.array(z.string()), 'Its tags (`[]` when none).'),
});

export const iterationSchema = z.object({
  id: z.string(),
  updated_at: z.string(),
  inference_settings: inferenceSettingsSchema,
  json_schema: jsonObject(),
  predictions: z.array(predictionSchema),
  metric_results: metricResultsSchema,
  schema_data_id: z.string(),
  schema_id: z.string(),
  /** Job state (docs/spec/jobs.md): imported and finished iterations are `completed`. */
  status: iterationStatusSchema,
  progress: iterationProgressSchema,
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  /** Why the whole iteration failed (every document failed, or the run stopped on an error), else null. */
  error: z.string().nullable(),
  usage: iterationUsageSchema,
  ...iterationLabelsSchema.shape,
});
export type Iteration = z.infer<typeof iterationSchema>;

/** An iteration imported with an evaluation: its predictions as they are (docs/spec/service.md, Evaluations). */
export const importedIterationInputSchema = z.object({
  id: z.string().min(1).max(256).optional(),
  inference_settings: inferenceSettingsInputSchema.default({}),
  json_schema: jsonObject().optional(),
  predictions: z
    .array(
      z.object({
        document_id: z.string().min(1).max(256).optional(),
        prediction: jsonObject().default({}),
        metadata: metadataSchema.nullable().optional(),
      }),
    )
    .max(LIMITS.maxDocumentsPerRequest)
    .default([]),
});
export type ImportedIterationInput = z.input<typeof importedIterationInputSchema>;

/** `true`: answer at once with the iteration's summary (`queued` / `running`); the run goes on in the server. */
const backgroundFlag = z.boolean().default(false);

export const createIterationInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  inference_settings: inferenceSettingsInputSchema.default({}),
  json_schema: jsonObject().optional(),
  background: backgroundFlag,
  ...iterationLabelsInputSchema.shape,
});
export type CreateIterationInput = z.input<typeof createIterationInputSchema>;

/**
 * `view`: `full` (the default, interface.md 2.5: every prediction and ItemMetric) or `summary` (settings, status,
 * means, progress and usage: no per-document arrays; docs/spec/service.md, Reads).
 */
export const iterationViewSchema = z.enum(['full', 'summary']).default('full');
export type IterationView = z.output<typeof iterationViewSchema>;

export const listIterationsInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  model: z.string().min(1).max(256).optional(),
  view: iterationViewSchema,
});
export type ListIterationsInput = z.input<typeof listIterationsInputSchema>;

export const iterationRefInputSchema = z.object({ evaluation_id: evaluationIdParam, iteration_id: iterationIdParam });
export type IterationRefInput = z.input<typeof iterationRefInputSchema>;

/** `PATCH .../iterations/{iteration_id}/metadata`: the labels to change; omitted ones stay. */
export const updateIterationMetadataInputSchema = iterationRefInputSchema.extend(iterationLabelsInputSchema.shape);
export type UpdateIterationMetadataInput = z.input<typeof updateIterationMetadataInputSchema>;

export const getIterationInputSchema = iterationRefInputSchema.extend({ view: iterationViewSchema });
export type GetIterationInput = z.input<typeof getIterationInputSchema>;

/**
 * An iteration without its per-document arrays (`?view=summary`): settings, status, progress counts, usage and
 * the two means, read from the iteration's running totals (docs/spec/service.md, Reads).
 */
export const iterationSummarySchema = z.object({
  id: z.string(),
  updated_at: z.string(),
  created_at: z.string(),
  inference_settings: inferenceSettingsSchema,
  json_schema: jsonObject(),
  schema_data_id: z.string(),
  schema_id: z.string(),
  status: iterationStatusSchema,
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  error: z.string().nullable(),
  progress: iterationProgressSchema,
  usage: iterationUsageSchema,
  metric_results: metricResultsSchema.omit({ item_metrics: true }),
  ...iterationLabelsSchema.shape,
});
export type IterationSummary = z.infer<typeof iterationSummarySchema>;

/**
 * `GET .../iterations/{iteration_id}/predictions?limit=&after=&document_ids=`: a page in the evaluation's document
 * order, or, with `document_ids`, of those documents only, in the order given.
 */
export const listPredictionsInputSchema = iterationRefInputSchema.extend({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** A document id: the page starts just after it (with `document_ids`, one of them). */
  after: idParam.optional(),
  /**
   * Only these documents' predictions, in this order (an id given twice is answered once, at its first place), read
   * by id: `limit` and `after` page through them. An id that is not a document of the evaluation is a 422 at
   * `document_ids.<index>` (as for a re-run's `document_ids`).
   */
  document_ids: z.array(idParam).max(LIMITS.maxDocumentsPerRequest).optional(),
});
export type ListPredictionsInput = z.input<typeof listPredictionsInputSchema>;

/** One document's outcome in an iteration, with its metrics (its ItemMetric). */
export const predictionWithMetricsSchema = predictionSchema.extend({
  status: z.enum(['succeeded', 'failed', 'pending']),
  metrics: itemMetricSchema,
});
export type PredictionWithMetrics = z.infer<typeof predictionWithMetricsSchema>;

export const predictionPageSchema = z.object({
  data: z.array(predictionWithMetricsSchema),
  list_metadata: listMetadataSchema,
});
export type PredictionPage = z.infer<typeof predictionPageSchema>;

/** Re-run an iteration's documents: all by default, or the given ones, or only those without a prediction. */
export const processIterationInputSchema = iterationRefInputSchema.extend({
  document_ids: z.array(idParam).max(LIMITS.maxDocumentsPerRequest).optional(),
  only_missing: z.boolean().default(false),
  background: backgroundFlag,
});
export type ProcessIterationInput = z.input<typeof processIterationInputSchema>;

/** An iteration by its id alone (ids are unique within an organization): the reference SDK's `/v1/evals/iterations/{id}`. */
export const iterationIdInputSchema = z.object({ iteration_id: iterationIdParam });
export type IterationIdInput = z.input<typeof iterationIdInputSchema>;

/**
 * Change an iteration's settings or schema (PUT): the given settings go over the iteration's own, a json_schema must
 * keep the evaluation's schema_data_id, and every document is extracted again when anything changed. Other fields a
 * client sends (the whole Iteration, as the reference SDK does) are ignored.
 */
export const updateIterationInputSchema = iterationRefInputSchema.extend({
  inference_settings: inferenceSettingsInputSchema.optional(),
  json_schema: jsonObject().optional(),
});
export type UpdateIterationInput = z.input<typeof updateIterationInputSchema>;

export const documentDistancesInputSchema = iterationRefInputSchema.extend({ document_id: documentIdParam });
export type DocumentDistancesInput = z.input<typeof documentDistancesInputSchema>;

/** One document's distances in an iteration: 1 − similarity, leaf by leaf, in the tree of `similarities`. */
export const documentDistancesSchema = z.object({
  distances: similarityMap,
  mean_distance: z.number(),
  metric_type: z.literal('levenshtein'),
});
export type DocumentDistances = z.infer<typeof documentDistancesSchema>;

/** `GET .../iterations/{iteration_id}/events`: `last_event_id` (SSE `Last-Event-ID`) resumes just after that event. */
export const iterationEventsInputSchema = iterationRefInputSchema.extend({
  last_event_id: z.string().min(1).max(1024).optional(),
});
export type IterationEventsInput = z.input<typeof iterationEventsInputSchema>;

export const documentEventDataSchema = z.object({
  document_id: z.string(),
  similarity: z.number().nullable(),
  error: z.string().nullable(),
});

/**
 * One event of an iteration's run: a document finished, progress counts (after the document event whose id it
 * carries), or the final `completed` / `failed` / `cancelled` with the iteration's summary.
 */
export const iterationEventSchema = z.discriminatedUnion('type', [
  z.object({ id: z.string(), type: z.literal('document'), data: documentEventDataSchema }),
  z.object({ id: z.string(), type: z.literal('progress'), data: iterationProgressSchema }),
  z.object({ id: z.string(), type: z.enum(['completed', 'failed', 'cancelled']), data: iterationSummarySchema }),
]);
export type IterationEvent = z.infer<typeof iterationEventSchema>;
