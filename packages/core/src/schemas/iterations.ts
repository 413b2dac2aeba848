import { z } from 'zod';
import { inferenceSettingsInputSchema, inferenceSettingsSchema } from './inference-settings.js';
import { idParam, jsonObject } from './json.js';
import { metadataSchema } from './metadata.js';
import { LIMITS } from '../limits.js';

/** A prediction in a response: one per document of the evaluation, in document order (docs/spec/service.md). */
export const predictionSchema = z.object({
  document_id: z.string(),
  prediction: jsonObject(),
  metadata: metadataSchema.nullable(),
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
});
export type ItemMetric = z.infer<typeof itemMetricSchema>;

export const metricResultsSchema = z.object({
  item_metrics: z.array(itemMetricSchema),
  mean_similarity: z.number(),
  aligned_mean_similarity: z.number(),
  metric_type: z.literal('levenshtein'),
});
export type MetricResults = z.infer<typeof metricResultsSchema>;

export const iterationSchema = z.object({
  id: z.string(),
  updated_at: z.string(),
  inference_settings: inferenceSettingsSchema,
  json_schema: jsonObject(),
  predictions: z.array(predictionSchema),
  metric_results: metricResultsSchema,
  schema_data_id: z.string(),
  schema_id: z.string(),
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

export const createIterationInputSchema = z.object({
  evaluation_id: idParam,
  inference_settings: inferenceSettingsInputSchema.default({}),
  json_schema: jsonObject().optional(),
});
export type CreateIterationInput = z.input<typeof createIterationInputSchema>;

export const listIterationsInputSchema = z.object({
  evaluation_id: idParam,
  model: z.string().min(1).max(256).optional(),
});
export type ListIterationsInput = z.input<typeof listIterationsInputSchema>;

export const iterationRefInputSchema = z.object({ evaluation_id: idParam, iteration_id: idParam });
export type IterationRefInput = z.input<typeof iterationRefInputSchema>;

/** Re-run an iteration's documents: all by default, or the given ones, or only those without a prediction. */
export const processIterationInputSchema = iterationRefInputSchema.extend({
  document_ids: z.array(idParam).max(LIMITS.maxDocumentsPerRequest).optional(),
  only_missing: z.boolean().default(false),
});
export type ProcessIterationInput = z.input<typeof processIterationInputSchema>;
