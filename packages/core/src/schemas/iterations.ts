import { z } from 'zod';
import { described } from './described.js';
import { inferenceSettingsInputSchema, inferenceSettingsSchema } from './inference-settings.js';
import { documentIdParam, evaluationIdParam, idParam, iterationIdParam, jsonObject } from './json.js';
import { listMetadataSchema } from './lists.js';
import { metadataSchema } from './metadata.js';
import { LIMITS } from '../limits.js';

/** A prediction in a response: one per document of the evaluation, in document order (docs/spec/service.md). */
export const predictionSchema = z.object({
  document_id: described(z.string(), 'The document this prediction is for (its `id`).'),
  prediction: described(jsonObject(), 'The extracted data, in the shape of the iteration\'s json_schema; `{}` when the extraction failed or has not run.'),
  metadata: metadataSchema.nullable(),
  /**
   * Whether the prediction validates against the iteration's json_schema (a malformed prediction is still scored
   * field by field); null when there is no prediction to check (failed, pending) or it was stored before the check.
   */
  schema_valid: described(z.boolean().nullable().optional(), 'Whether the prediction validates against the iteration\'s json_schema. A malformed prediction is still scored field by field; absent when there is nothing to check (failed, pending) or it was stored before the check.'),
  /** The first issues (at most 5) when `schema_valid` is false. */
  schema_issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
}).meta({ description: 'An iteration\'s prediction for one document.' });
export type Prediction = z.infer<typeof predictionSchema>;

const similarityMap = z.record(z.string(), z.unknown());

export const itemMetricSchema = z.object({
  id: described(z.string(), 'The document\'s id.'),
  name: described(z.string(), 'The document\'s file name.'),
  similarity: described(z.number(), 'Similarity of the prediction to the annotation, 0 (nothing right) to 1 (identical): the mean of the leaves.'),
  similarities: described(similarityMap, 'Per-field similarity (0 to 1) in the tree of the annotation: objects and arrays hold the similarities of their items.'),
  flat_similarities: described(z.record(z.string(), z.number()), 'The same similarities keyed by dotted path (`items.0.price`).'),
  aligned_similarity: described(z.number(), 'Similarity after matching list items to their closest counterpart, ignoring order (docs/spec/metrics.md).'),
  aligned_similarities: described(similarityMap, 'Per-field similarity (0 to 1) in the tree of the annotation: objects and arrays hold the similarities of their items. With list items aligned.'),
  aligned_flat_similarities: described(z.record(z.string(), z.number()), 'The aligned similarities keyed by dotted path.'),
  /** Only when alignment ran out of its work budget: the aligned figures are the positional ones. */
  alignment: described(z.literal('positional_fallback').optional(), 'Present as `positional_fallback` when aligning this document\'s lists would have passed the work budget ' +
    '(docs/spec/limits.md): the aligned figures are then the positional ones.'),
  /** Only when the strings ran out of their Levenshtein work budget: strings past it score 1 if equal, else 0. */
  levenshtein: described(z.literal('equality_fallback').optional(), 'Present as `equality_fallback` when comparing this document\'s strings would have passed the Levenshtein work ' +
    'budget (docs/spec/limits.md): strings compared past it score 1 when equal after normalization, else 0.'),
}).meta({ description: 'How close one document\'s prediction is to its annotation.' });
export type ItemMetric = z.infer<typeof itemMetricSchema>;

/**
 * Documents of an iteration by outcome (docs/spec/metrics.md section 5): `unlabeled` (no ground truth, whatever the
 * extraction did), and among the labeled ones `succeeded`, `failed` and `pending` (no outcome yet).
 */
export const outcomeCountsSchema = z.object({
  documents: described(z.number().int(), 'Documents in the evaluation.'),
  succeeded: described(z.number().int(), 'Labeled documents with a prediction.'),
  failed: described(z.number().int(), 'Labeled documents whose extraction failed: each counts 0 in the means.'),
  unlabeled: described(z.number().int(), 'Documents without ground truth (annotation `{}` or only empty values), whatever their outcome: in no mean.'),
  pending: described(z.number().int(), 'Labeled documents without an outcome yet.'),
}).meta({ description: 'An iteration\'s documents by outcome, as its figures count them (docs/spec/metrics.md section 5).' });
export type OutcomeCounts = z.infer<typeof outcomeCountsSchema>;

export const metricResultsSchema = z.object({
  item_metrics: z.array(itemMetricSchema),
  /** Over the labeled documents that finished, a failed one counting 0 (docs/spec/metrics.md section 5). */
  mean_similarity: described(z.number(), 'Mean `similarity` over the labeled documents that finished, a failed one counting 0 (docs/spec/metrics.md ' +
    'section 5); unlabeled documents are in no mean. 0 when none finished; 1 for an evaluation without documents.'),
  aligned_mean_similarity: described(z.number(), 'The same over `aligned_similarity`.'),
  metric_type: described(z.literal('levenshtein'), 'The similarity measure of strings: normalized Levenshtein distance.'),
  /** Over the labeled documents that succeeded only; null when none did. */
  succeeded_mean_similarity: described(z.number().nullable(), 'Mean `similarity` over the labeled succeeded documents only; null when none.'),
  succeeded_aligned_mean_similarity: described(z.number().nullable(), 'The same over `aligned_similarity`.'),
  /** succeeded / (succeeded + failed) over labeled documents; null when none finished. */
  coverage: described(z.number().nullable(), 'succeeded / (succeeded + failed) over labeled documents; null when none finished.'),
  /** Share of the succeeded predictions that validate against the iteration's json_schema; null when none. */
  schema_valid_rate: described(z.number().nullable(), 'Share of the succeeded predictions that validate against the json_schema; null when none.'),
  counts: outcomeCountsSchema,
  /** Labeled documents have no outcome yet (the run goes on, or documents were added since): the figures cover the finished ones. */
  partial: described(z.boolean(), 'True while labeled documents have no outcome yet (the run goes on, or documents were added): the figures cover the finished ones.'),
}).meta({ description: 'An iteration\'s metrics against the annotations.' });
export type MetricResults = z.infer<typeof metricResultsSchema>;

export const iterationStatusSchema = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);

/** Documents of an iteration by outcome; `pending` ones have no prediction yet (added later, or not run yet). */
export const iterationProgressSchema = z.object({
  total: described(z.number().int(), 'Documents in the evaluation now.'),
  succeeded: described(z.number().int(), 'Documents with a prediction whose extraction succeeded: the ones the means are over.'),
  failed: described(z.number().int(), 'Documents whose extraction failed (the reason is in their prediction\'s `metadata.error`).'),
  pending: described(z.number().int(), 'Documents without a prediction yet: added after the iteration ran, or not run yet.'),
});
export type IterationProgress = z.infer<typeof iterationProgressSchema>;

/** Summed over the iteration's predictions: tokens and `api_cost.value` as the extractors reported them. */
export const iterationUsageSchema = z.object({
  input_tokens: described(z.number(), 'Input tokens of every prediction, summed as the extractors reported them.'),
  output_tokens: described(z.number(), 'Output tokens, summed likewise.'),
  cost: described(z.number(), 'The predictions\' `api_cost.value`, summed (0 where no price is known).'),
});

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
  id: described(z.string(), 'The iteration\'s id (`eval_iter_...`), unique within the organization.'),
  updated_at: z.string(),
  inference_settings: inferenceSettingsSchema,
  json_schema: described(jsonObject(), 'The JSON Schema the iteration extracted with: the evaluation\'s, or its own with the same schema_data_id.'),
  predictions: z.array(predictionSchema),
  metric_results: metricResultsSchema,
  schema_data_id: described(z.string(), '`sch_data_id_` and a hash of the structure of the JSON schema (types, properties, items), without descriptions, titles, defaults, examples, `x-` fields or `required`. Two schemas that only word their prompts differently share it; once an evaluation has iterations it cannot change (409).'),
  schema_id: described(z.string(), '`sch_id_` and a hash of the JSON schema exactly as given: changes with any change, descriptions and titles included.'),
  /** Job state (docs/spec/jobs.md): imported and finished iterations are `completed`. */
  status: described(iterationStatusSchema, '`queued`, `running`, `completed`, `failed` (every document failed, or the run stopped on an error) or `cancelled` (docs/spec/jobs.md).'),
  progress: iterationProgressSchema,
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  /** Why the whole iteration failed (every document failed, or the run stopped on an error), else null. */
  error: described(z.string().nullable(), 'Why the whole iteration failed; null otherwise.'),
  usage: iterationUsageSchema,
  ...iterationLabelsSchema.shape,
}).meta({ description: 'A run of extraction over an evaluation\'s documents, with its predictions and metrics.' });
export type Iteration = z.infer<typeof iterationSchema>;

/** An iteration imported with an evaluation: its predictions as they are (docs/spec/service.md, Evaluations). */
export const importedIterationInputSchema = z.object({
  id: described(z.string().min(1).max(256).optional(), 'The iteration\'s id; one is made when left out.'),
  inference_settings: inferenceSettingsInputSchema.default({}),
  json_schema: described(jsonObject().optional(), 'The JSON Schema it ran with: defaults to the evaluation\'s; must have the same schema_data_id.'),
  predictions: z
    .array(
      z.object({
        document_id: described(z.string().min(1).max(256).optional(), 'The document it belongs to; left out, predictions match documents by position.'),
        prediction: described(jsonObject().default({}), 'The extracted data. Defaults to `{}`.'),
        metadata: metadataSchema.nullable().optional(),
      }),
    )
    .max(LIMITS.maxDocumentsPerRequest)
    .default([]),
}).meta({ description: 'An iteration run elsewhere, imported with its predictions.' });
export type ImportedIterationInput = z.input<typeof importedIterationInputSchema>;

/** `true`: answer at once with the iteration's summary (`queued` / `running`); the run goes on in the server. */
const backgroundFlag = z.boolean().default(false);

export const createIterationInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  inference_settings: inferenceSettingsInputSchema.default({}),
  json_schema: described(jsonObject().optional(), 'A JSON Schema for this iteration only (other prompts): it must have the evaluation\'s schema_data_id. Defaults to the evaluation\'s.'),
  background: described(backgroundFlag, '`true`: answer at once (202 with the iteration summary and a `Location`) and run in the server; follow it on `.../events`. Default false: answer when every document has run.'),
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
  model: described(z.string().min(1).max(256).optional(), 'Only iterations whose inference_settings.model is exactly this.'),
  view: described(iterationViewSchema, '`full` (the default: every prediction and item metric) or `summary` (settings, status, progress, usage and means only).'),
});
export type ListIterationsInput = z.input<typeof listIterationsInputSchema>;

export const iterationRefInputSchema = z.object({
  evaluation_id: described(evaluationIdParam, 'The evaluation\'s id.'),
  iteration_id: described(iterationIdParam, 'The iteration\'s id (`eval_iter_...`).'),
});
export type IterationRefInput = z.input<typeof iterationRefInputSchema>;

/** `PATCH .../iterations/{iteration_id}/metadata`: the labels to change; omitted ones stay. */
export const updateIterationMetadataInputSchema = iterationRefInputSchema.extend(iterationLabelsInputSchema.shape);
export type UpdateIterationMetadataInput = z.input<typeof updateIterationMetadataInputSchema>;

export const getIterationInputSchema = iterationRefInputSchema.extend({
  view: described(iterationViewSchema, '`full` (the default: every prediction and item metric) or `summary` (settings, status, progress, usage and means only).'),
});
export type GetIterationInput = z.input<typeof getIterationInputSchema>;

/**
 * An iteration without its per-document arrays (`?view=summary`): settings, status, progress counts, usage and
 * the two means, read from the iteration's running totals (docs/spec/service.md, Reads).
 */
export const iterationSummarySchema = z.object({
  id: described(z.string(), 'The iteration\'s id (`eval_iter_...`), unique within the organization.'),
  updated_at: z.string(),
  created_at: z.string(),
  inference_settings: inferenceSettingsSchema,
  json_schema: described(jsonObject(), 'The JSON Schema the iteration extracts with.'),
  schema_data_id: described(z.string(), '`sch_data_id_` and a hash of the structure of the JSON schema (types, properties, items), without descriptions, titles, defaults, examples, `x-` fields or `required`. Two schemas that only word their prompts differently share it; once an evaluation has iterations it cannot change (409).'),
  schema_id: described(z.string(), '`sch_id_` and a hash of the JSON schema exactly as given: changes with any change, descriptions and titles included.'),
  status: described(iterationStatusSchema, '`queued`, `running`, `completed`, `failed` (every document failed, or the run stopped on an error) or `cancelled`.'),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  error: described(z.string().nullable(), 'Why the whole iteration failed; null otherwise.'),
  progress: iterationProgressSchema,
  usage: iterationUsageSchema,
  metric_results: metricResultsSchema.omit({ item_metrics: true }),
  ...iterationLabelsSchema.shape,
}).meta({ description: 'An iteration without its per-document arrays (`?view=summary`): settings, status, progress, usage and means.' });
export type IterationSummary = z.infer<typeof iterationSummarySchema>;

/**
 * `GET .../iterations/{iteration_id}/predictions?limit=&after=&document_ids=`: a page in the evaluation's document
 * order, or, with `document_ids`, of those documents only, in the order given.
 */
export const listPredictionsInputSchema = iterationRefInputSchema.extend({
  limit: described(z.coerce.number().int().min(1).max(1000).default(100), 'How many predictions a page holds, 1 to 1,000 (100).'),
  /** A document id: the page starts just after it (with `document_ids`, one of them). */
  after: described(idParam.optional(), 'A cursor: the `list_metadata.after` of the current page (a document id), for the page after it.'),
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
  status: described(z.enum(['succeeded', 'failed', 'pending']), '`succeeded`, `failed` or `pending` (no prediction yet).'),
  metrics: itemMetricSchema,
}).meta({ description: 'One document\'s outcome in an iteration, with its metrics.' });
export type PredictionWithMetrics = z.infer<typeof predictionWithMetricsSchema>;

export const predictionPageSchema = z.object({
  data: z.array(predictionWithMetricsSchema),
  list_metadata: listMetadataSchema,
});
export type PredictionPage = z.infer<typeof predictionPageSchema>;

/** Re-run an iteration's documents: all by default, or the given ones, or only those without a prediction. */
export const processIterationInputSchema = iterationRefInputSchema.extend({
  document_ids: described(z.array(idParam).max(LIMITS.maxDocumentsPerRequest).optional(), 'Re-run only these documents (their ids); left out, every document.'),
  only_missing: described(z.boolean().default(false), 'Re-run only the documents without a prediction yet (pending ones, or those whose extraction failed). Default false.'),
  background: described(backgroundFlag, '`true`: answer at once (202 with the iteration summary and a `Location`) and run in the server; follow it on `.../events`. Default false: answer when every document has run.'),
});
export type ProcessIterationInput = z.input<typeof processIterationInputSchema>;

/** An iteration by its id alone (ids are unique within an organization): the reference SDK's `/v1/evals/iterations/{id}`. */
export const iterationIdInputSchema = z.object({
  iteration_id: described(iterationIdParam, 'The iteration\'s id (`eval_iter_...`). Ids are unique within the organization, so the evaluation is found from it.'),
});
export type IterationIdInput = z.input<typeof iterationIdInputSchema>;

/**
 * Change an iteration's settings or schema (PUT): the given settings go over the iteration's own, a json_schema must
 * keep the evaluation's schema_data_id, and every document is extracted again when anything changed. Other fields a
 * client sends (the whole Iteration, as the reference SDK does) are ignored.
 */
export const updateIterationInputSchema = iterationRefInputSchema.extend({
  inference_settings: inferenceSettingsInputSchema.optional(),
  json_schema: described(jsonObject().optional(), 'A new JSON Schema for the iteration (other prompts): it must keep the evaluation\'s schema_data_id (409 otherwise).'),
});
export type UpdateIterationInput = z.input<typeof updateIterationInputSchema>;

export const documentDistancesInputSchema = iterationRefInputSchema.extend({ document_id: documentIdParam });
export type DocumentDistancesInput = z.input<typeof documentDistancesInputSchema>;

/** One document's distances in an iteration: 1 − similarity, leaf by leaf, in the tree of `similarities`. */
export const documentDistancesSchema = z.object({
  distances: described(similarityMap, 'Per-field distance, 1 − similarity (0 = identical, 1 = nothing in common), in the tree of the item metric\'s `similarities`.'),
  mean_distance: described(z.number(), 'The document\'s distance: 1 − its `similarity`.'),
  metric_type: described(z.literal('levenshtein'), 'The similarity measure of strings: normalized Levenshtein distance.'),
}).meta({ description: 'How far one document\'s prediction is from its annotation in an iteration.' });
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
