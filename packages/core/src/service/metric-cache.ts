import type { JsonObject } from '../json/assert-json.js';
import { compareDocuments, computeItemMetric } from '../metrics/index.js';
import type { ItemMetric } from '../schemas/index.js';
import type { Metadata } from '../schemas/metadata.js';
import type {
  CachedDocumentMetrics,
  DocumentRecord,
  PredictionRecord,
  PredictionStatus,
  PredictionTotals,
} from '../storage.js';

/** The prediction of a document that has none in an iteration (pending there): scored as `{}` when shown. */
export const EMPTY_PREDICTION: JsonObject = Object.freeze({}) as JsonObject;

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
 * when a refresh after an edit has not happened yet (or never will, after a crash).
 */
export function currentMetrics(document: DocumentRecord, prediction: PredictionRecord | null): CachedDocumentMetrics {
  if (prediction && prediction.metrics.annotation_revision === document.revision) return prediction.metrics;
  return computeDocumentMetrics(document.annotation, prediction?.prediction ?? EMPTY_PREDICTION, document.revision);
}

/** The ItemMetric a response shows for cached figures. */
export function itemMetricOf(document: DocumentRecord, metrics: CachedDocumentMetrics): ItemMetric {
  const { annotation_revision: _revision, ...figures } = metrics;
  return { id: document.id, name: document.filename, ...figures };
}

/** What {@link computeItemMetric} would give, from the cache when it is current. */
export function currentItemMetric(document: DocumentRecord, prediction: PredictionRecord | null): ItemMetric {
  if (!prediction) return computeItemMetric({ id: document.id, name: document.filename, annotation: document.annotation }, EMPTY_PREDICTION);
  return itemMetricOf(document, currentMetrics(document, prediction));
}

/** A prediction failed when its metadata carries an `error` string (the extraction runner's convention). */
export function statusOf(metadata: Metadata | null): PredictionStatus {
  return typeof metadata?.error === 'string' ? 'failed' : 'succeeded';
}

const numberAt = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** The numbers a prediction adds to its iteration's running totals (storage.ts, PredictionTotals). */
export function predictionTotals(status: PredictionStatus, metrics: CachedDocumentMetrics, metadata: Metadata | null): PredictionTotals {
  const usage = (metadata as { usage?: Record<string, unknown> } | null)?.usage;
  const ok = status === 'succeeded';
  return {
    succeeded: ok ? 1 : 0,
    failed: ok ? 0 : 1,
    similarity: ok ? metrics.similarity : 0,
    aligned_similarity: ok ? metrics.aligned_similarity : 0,
    cost: numberAt(metadata?.api_cost?.value),
    priced: metadata?.api_cost ? 1 : 0,
    input_tokens: numberAt(usage?.input_tokens),
    output_tokens: numberAt(usage?.output_tokens),
  };
}

/**
 * The stored record of one document's prediction in one iteration, with metrics for the document's revision and
 * the totals those give.
 */
export function newPredictionRecord(
  iteration: { id: string; organization_id: string; evaluation_id: string },
  document: Pick<DocumentRecord, 'id' | 'annotation' | 'revision'>,
  result: { prediction: JsonObject; metadata: Metadata | null },
  now: string,
): PredictionRecord {
  const status = statusOf(result.metadata);
  const metrics = computeDocumentMetrics(document.annotation, result.prediction, document.revision);
  return {
    id: document.id,
    organization_id: iteration.organization_id,
    parent_id: iteration.id,
    evaluation_id: iteration.evaluation_id,
    updated_at: now,
    status,
    prediction: result.prediction,
    metadata: result.metadata,
    metrics,
    totals: predictionTotals(status, metrics, result.metadata),
  };
}

/** The same prediction with metrics (and totals) for the document's current annotation. */
export function withCurrentMetrics(record: PredictionRecord, document: DocumentRecord, now: string): PredictionRecord {
  const metrics = computeDocumentMetrics(document.annotation, record.prediction, document.revision);
  return { ...record, metrics, totals: predictionTotals(record.status, metrics, record.metadata), updated_at: now };
}
