import {
  compareDocuments,
  type CachedDocumentMetrics,
  type DocumentRecord,
  type EvaluationRecord,
  type IterationRecord,
  type JsonObject,
  type Metadata,
  type PredictionRecord,
  type PredictionTotals,
} from '@docevals/core';

/**
 * Records as the previous release stored them (`git show` of the contract's parent: `packages/core/src/storage.ts`):
 * an evaluation held its documents in an array, an iteration held every prediction in a map by document id. Read
 * by the lowdb migration (at open) and the Redis adapter (lazily, then rewritten).
 */
export interface LegacyDocument {
  id: string;
  filename: string;
  annotation: JsonObject;
  annotation_metadata: Metadata | null;
  revision: string;
}

export interface LegacyEvaluation extends Omit<EvaluationRecord, 'document_count'> {
  documents: LegacyDocument[];
}

export interface LegacyPrediction {
  prediction: JsonObject;
  metadata: Metadata | null;
  metrics?: CachedDocumentMetrics;
}

export interface LegacyIteration
  extends Omit<IterationRecord, 'status' | 'started_at' | 'finished_at' | 'error' | 'lease'> {
  predictions: Record<string, LegacyPrediction>;
}

export function isLegacyEvaluation(value: unknown): value is LegacyEvaluation {
  return typeof value === 'object' && value !== null && Array.isArray((value as { documents?: unknown }).documents);
}

export function isLegacyIteration(value: unknown): value is LegacyIteration {
  const predictions = (value as { predictions?: unknown } | null)?.predictions;
  return typeof predictions === 'object' && predictions !== null && !Array.isArray(predictions);
}

/** What the store knows of a file: its media type and size (0 and octet-stream when the file is gone). */
export type FileFacts = (fileId: string) => { mime_type: string; size: number } | undefined;

/** Splits a legacy evaluation into the evaluation record and its document records (in the array's order). */
export function convertEvaluation(legacy: LegacyEvaluation, facts: FileFacts): { evaluation: EvaluationRecord; documents: DocumentRecord[] } {
  const { documents: legacyDocuments, ...rest } = legacy;
  const evaluation: EvaluationRecord = { ...rest, document_count: legacyDocuments.length };
  const documents = legacyDocuments.map((d): DocumentRecord => {
    const file = facts(d.id);
    return {
      id: d.id,
      organization_id: legacy.organization_id,
      parent_id: legacy.id,
      updated_at: legacy.updated_at,
      filename: d.filename,
      mime_type: file?.mime_type ?? 'application/octet-stream',
      size: file?.size ?? 0,
      annotation: d.annotation,
      annotation_metadata: d.annotation_metadata,
      revision: d.revision,
    };
  });
  return { evaluation, documents };
}

/**
 * Splits a legacy iteration into the iteration record (status `completed`) and one prediction per document of its
 * evaluation, in the evaluation's document order: a document without an entry had the prediction `{}` with
 * metadata null; an entry of a document no longer in the evaluation is dropped. Each prediction gets its status
 * (failed when its metadata has an `error` string), its metrics (cached ones when they name the document's
 * revision, else `compareDocuments`) and its totals.
 */
export function convertIteration(
  legacy: LegacyIteration,
  documents: readonly DocumentRecord[],
): { iteration: IterationRecord; predictions: PredictionRecord[] } {
  const { predictions: legacyPredictions, ...rest } = legacy;
  const iteration: IterationRecord = {
    ...rest,
    status: 'completed',
    started_at: legacy.created_at,
    finished_at: legacy.updated_at,
    error: null,
    lease: null,
  };
  const predictions = documents.map((document): PredictionRecord => {
    const entry = Object.hasOwn(legacyPredictions, document.id) ? legacyPredictions[document.id] : undefined;
    const prediction = entry?.prediction ?? {};
    const metadata = entry?.metadata ?? null;
    const failed = typeof metadata?.error === 'string';
    const metrics =
      entry?.metrics && entry.metrics.annotation_revision === document.revision
        ? entry.metrics
        : { ...compareDocuments(document.annotation, prediction), annotation_revision: document.revision };
    return {
      id: document.id,
      organization_id: legacy.organization_id,
      parent_id: legacy.id,
      evaluation_id: legacy.evaluation_id,
      updated_at: legacy.updated_at,
      status: failed ? 'failed' : 'succeeded',
      prediction,
      metadata,
      metrics,
      totals: predictionTotals(failed, metrics, metadata),
    };
  });
  return { iteration, predictions };
}

/** The {@link PredictionTotals} of one prediction. */
export function predictionTotals(failed: boolean, metrics: CachedDocumentMetrics, metadata: Metadata | null): PredictionTotals {
  const usage = (metadata as { usage?: { input_tokens?: unknown; output_tokens?: unknown } } | null)?.usage;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : 0);
  return {
    succeeded: failed ? 0 : 1,
    failed: failed ? 1 : 0,
    similarity: failed ? 0 : metrics.similarity,
    aligned_similarity: failed ? 0 : metrics.aligned_similarity,
    cost: count(metadata?.api_cost?.value),
    input_tokens: count(usage?.input_tokens),
    output_tokens: count(usage?.output_tokens),
  };
}
