import type { JsonObject } from '../json/assert-json.js';
import { compileJsonSchema } from '../json-schema/compile.js';
import { compareDocuments, computeItemMetric, isLabeled } from '../metrics/index.js';
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
  // The revision added to compareDocuments' own fresh object (its last key), not the figures copied behind it.
  const metrics = compareDocuments(annotation, prediction) as CachedDocumentMetrics;
  metrics.annotation_revision = annotationRevision;
  return metrics;
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
  // One object, the figures copied in their order without the revision (a rest copy then a spread made two).
  const item = { id: document.id, name: document.filename } as ItemMetric;
  const fields = item as Record<string, unknown>;
  for (const key in metrics) if (key !== 'annotation_revision') fields[key] = metrics[key as keyof CachedDocumentMetrics];
  return item;
}

/** What {@link computeItemMetric} would give, from the cache when it is current. */
export function currentItemMetric(document: DocumentRecord, prediction: PredictionRecord | null): ItemMetric {
  if (!prediction) return computeItemMetric({ id: document.id, name: document.filename, annotation: document.annotation }, EMPTY_PREDICTION);
  return itemMetricOf(document, currentMetrics(document, prediction));
}

/** A document's totals (summed per evaluation): whether its annotation gives no ground truth. */
export function documentTotals(annotation: JsonObject): { unlabeled: number } {
  return { unlabeled: isLabeled(annotation) ? 0 : 1 };
}

/** A prediction failed when its metadata carries an `error` string (the extraction runner's convention). */
export function statusOf(metadata: Metadata | null): PredictionStatus {
  return typeof metadata?.error === 'string' ? 'failed' : 'succeeded';
}

const numberAt = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * The numbers a prediction adds to its iteration's running totals (storage.ts, PredictionTotals). The `unlabeled_*`
 * and `schema_invalid` keys are subtracted from the plain ones when a summary is made, so a prediction stored before
 * they existed counts as labeled and valid, as it did then.
 */
export function predictionTotals(
  status: PredictionStatus,
  metrics: CachedDocumentMetrics,
  metadata: Metadata | null,
  facts: { labeled?: boolean; schema_valid?: boolean | null } = {},
): PredictionTotals {
  const usage = (metadata as { usage?: Record<string, unknown> } | null)?.usage;
  const ok = status === 'succeeded';
  const unlabeled = facts.labeled === false ? 1 : 0;
  return {
    succeeded: ok ? 1 : 0,
    failed: ok ? 0 : 1,
    similarity: ok ? metrics.similarity : 0,
    aligned_similarity: ok ? metrics.aligned_similarity : 0,
    unlabeled,
    unlabeled_succeeded: ok ? unlabeled : 0,
    unlabeled_failed: ok ? 0 : unlabeled,
    unlabeled_similarity: ok && unlabeled ? metrics.similarity : 0,
    unlabeled_aligned_similarity: ok && unlabeled ? metrics.aligned_similarity : 0,
    schema_invalid: ok && facts.schema_valid === false ? 1 : 0,
    cost: numberAt(metadata?.api_cost?.value),
    priced: metadata?.api_cost ? 1 : 0,
    input_tokens: numberAt(usage?.input_tokens),
    output_tokens: numberAt(usage?.output_tokens),
  };
}

/** Most issues a prediction that does not match its schema keeps. */
export const MAX_SCHEMA_ISSUES = 5;

/**
 * Whether a succeeded prediction validates against the iteration's json_schema, with the first
 * {@link MAX_SCHEMA_ISSUES} issues when it does not (docs/spec/metrics.md section 5). A failed one is not checked
 * (null): it has no output.
 */
export function schemaCheck(
  jsonSchema: JsonObject | undefined,
  status: PredictionStatus,
  prediction: JsonObject,
): { schema_valid: boolean | null; schema_issues?: Array<{ path: string; message: string }> } {
  if (status !== 'succeeded' || !jsonSchema) return { schema_valid: null };
  const validate = compileJsonSchema(jsonSchema);
  if (validate(prediction)) return { schema_valid: true };
  const issues = (validate.errors ?? []).slice(0, MAX_SCHEMA_ISSUES).map((e) => ({
    path: e.instancePath.replace(/^\//, '').split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).join('.'),
    message: e.message ?? 'is invalid',
  }));
  return { schema_valid: false, schema_issues: issues };
}

/**
 * The stored record of one document's prediction in one iteration, with metrics for the document's revision and
 * the totals those give.
 */
export function newPredictionRecord(
  iteration: { id: string; organization_id: string; evaluation_id: string; json_schema?: JsonObject },
  document: Pick<DocumentRecord, 'id' | 'annotation' | 'revision'>,
  result: { prediction: JsonObject; metadata: Metadata | null },
  now: string,
): PredictionRecord {
  const status = statusOf(result.metadata);
  const metrics = computeDocumentMetrics(document.annotation, result.prediction, document.revision);
  const check = schemaCheck(iteration.json_schema, status, result.prediction);
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
    ...check,
    totals: predictionTotals(status, metrics, result.metadata, { labeled: isLabeled(document.annotation), schema_valid: check.schema_valid }),
  };
}

/** The same prediction with metrics (and totals) for the document's current annotation. */
export function withCurrentMetrics(record: PredictionRecord, document: DocumentRecord, now: string): PredictionRecord {
  const metrics = computeDocumentMetrics(document.annotation, record.prediction, document.revision);
  const facts = { labeled: isLabeled(document.annotation), schema_valid: record.schema_valid ?? null };
  return { ...record, metrics, totals: predictionTotals(record.status, metrics, record.metadata, facts), updated_at: now };
}
