import { DocevalsError } from '../errors.js';
import type { JsonObject } from '../json/assert-json.js';
import { compareDocuments } from '../metrics/index.js';
import type { Document, Evaluation, ItemMetric, Iteration, MetricResults } from '../schemas/index.js';
import type {
  CachedDocumentMetrics,
  EvaluationRecord,
  IterationRecord,
  StoredDocument,
  StoredPrediction,
} from '../storage.js';
import type { ServiceContext } from './context.js';
import { toDataUrl } from './data-url.js';
import { renderDefaultSettings } from './settings.js';

const EMPTY_PREDICTION: JsonObject = Object.freeze({}) as JsonObject;

/** The metrics of one document, computed against the annotation revision given. */
export function computeDocumentMetrics(
  annotation: JsonObject,
  prediction: JsonObject,
  annotationRevision: string,
): CachedDocumentMetrics {
  return { annotation_revision: annotationRevision, ...compareDocuments(annotation, prediction) };
}

/**
 * Metrics for a document as stored now: the cached figures when they were computed against the document's current
 * annotation revision, else computed afresh. So metrics always describe the stored annotation and prediction, even
 * when a refresh after an edit has not happened (or never will, after a crash).
 */
export function currentMetrics(document: StoredDocument, entry: StoredPrediction | undefined): CachedDocumentMetrics {
  if (entry?.metrics && entry.metrics.annotation_revision === document.revision) return entry.metrics;
  return computeDocumentMetrics(document.annotation, entry?.prediction ?? EMPTY_PREDICTION, document.revision);
}

export function renderIteration(evaluation: EvaluationRecord, iteration: IterationRecord): Iteration {
  const predictions: Iteration['predictions'] = [];
  const items: ItemMetric[] = [];
  let sum = 0;
  let alignedSum = 0;
  for (const document of evaluation.documents) {
    const entry = iteration.predictions[document.id];
    predictions.push({
      document_id: document.id,
      prediction: entry?.prediction ?? {},
      metadata: entry?.metadata ?? null,
    });
    const m = currentMetrics(document, entry);
    sum += m.similarity;
    alignedSum += m.aligned_similarity;
    items.push({
      id: document.id,
      name: document.filename,
      similarity: m.similarity,
      similarities: m.similarities,
      flat_similarities: m.flat_similarities,
      aligned_similarity: m.aligned_similarity,
      aligned_similarities: m.aligned_similarities,
      aligned_flat_similarities: m.aligned_flat_similarities,
    });
  }
  const n = evaluation.documents.length;
  const metric_results: MetricResults = {
    item_metrics: items,
    mean_similarity: n === 0 ? 1 : sum / n,
    aligned_mean_similarity: n === 0 ? 1 : alignedSum / n,
    metric_type: 'levenshtein',
  };
  return {
    id: iteration.id,
    updated_at: iteration.updated_at,
    inference_settings: iteration.inference_settings,
    json_schema: iteration.json_schema,
    predictions,
    metric_results,
    schema_data_id: iteration.schema_data_id,
    schema_id: iteration.schema_id,
  };
}

export async function renderDocuments(
  ctx: ServiceContext,
  organizationId: string,
  documents: readonly StoredDocument[],
): Promise<Document[]> {
  return Promise.all(
    documents.map(async (document) => {
      const file = await ctx.storage.files.get(organizationId, document.id);
      if (!file) {
        throw new DocevalsError(
          'storage_error',
          `The ${ctx.storage.name} storage has no content for file ${document.id} that document refers to.`,
        );
      }
      return {
        id: document.id,
        mime_data: { filename: document.filename, url: toDataUrl(file) },
        annotation: document.annotation,
        annotation_metadata: document.annotation_metadata,
      };
    }),
  );
}

/** Loads an evaluation's iteration records in its order (oldest first), skipping ids whose record is gone. */
export async function loadIterations(
  ctx: ServiceContext,
  evaluation: EvaluationRecord,
): Promise<IterationRecord[]> {
  if (evaluation.iteration_ids.length === 0) return [];
  const found = await ctx.storage.iterations.getMany(evaluation.organization_id, evaluation.iteration_ids);
  return found.filter((v): v is NonNullable<typeof v> => v !== null).map((v) => v.value);
}

export async function renderEvaluation(ctx: ServiceContext, evaluation: EvaluationRecord): Promise<Evaluation> {
  const [documents, iterations] = await Promise.all([
    renderDocuments(ctx, evaluation.organization_id, evaluation.documents),
    loadIterations(ctx, evaluation),
  ]);
  return {
    id: evaluation.id,
    updated_at: evaluation.updated_at,
    name: evaluation.name,
    project_id: evaluation.project_id,
    documents,
    iterations: iterations.map((it) => renderIteration(evaluation, it)),
    json_schema: evaluation.json_schema,
    default_inference_settings: renderDefaultSettings(evaluation.default_inference_settings),
    schema_data_id: evaluation.schema_data_id,
    schema_id: evaluation.schema_id,
  };
}
