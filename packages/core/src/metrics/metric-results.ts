import { validationError } from '../errors.js';
import type { JsonObject } from '../json/assert-json.js';
import type { ItemMetric, MetricResults } from '../schemas/iterations.js';
import { compareDocumentsAt } from './compare-documents.js';

/** What {@link computeMetricResults} needs of a document. */
export interface MetricDocument {
  id: string;
  /** `mime_data.filename`. */
  name: string;
  annotation: JsonObject;
}

/**
 * The ItemMetric of one document: its id and name and the six figures of (annotation, prediction).
 *
 * @example
 * computeItemMetric({ id: 'doc_1', name: 'a.pdf', annotation: { total: 1 } }, { total: 1 }).similarity; // 1
 */
export function computeItemMetric(document: MetricDocument, prediction: JsonObject): ItemMetric {
  return { id: document.id, name: document.name, ...compareDocumentsAt(document.annotation, prediction, 'annotation', 'prediction') };
}

/**
 * An annotation that gives ground truth: some value in it fills a field (anything but null, `""`, `[]`, `{}`).
 * A document whose annotation is `{}` (never annotated) or holds only empty values is *unlabeled*: it is in no mean
 * (docs/spec/metrics.md section 5), since any prediction of nothing would score as exact against it.
 *
 * @example
 * isLabeled({}); // false
 * isLabeled({ total: null, items: [] }); // false
 * isLabeled({ total: 0 }); // true
 */
export function isLabeled(annotation: unknown): boolean {
  if (annotation === undefined || annotation === null) return false;
  if (typeof annotation === 'string') return annotation.length > 0;
  if (typeof annotation !== 'object') return true;
  const values = Array.isArray(annotation) ? annotation : Object.values(annotation as Record<string, unknown>);
  return values.some((v) => isLabeled(v));
}

/**
 * Means over per-document figures (docs/spec/metrics.md section 5) when every document was extracted (a pure
 * computation, no failures): unlabeled documents are in no mean. Means are 1 when there are no documents.
 *
 * @example
 * metricResultsFromItems([]).mean_similarity; // 1
 */
export function metricResultsFromItems(itemMetrics: ItemMetric[], labeled?: readonly boolean[]): MetricResults {
  const sums: OutcomeSums = { ...NO_OUTCOMES, documents: itemMetrics.length };
  itemMetrics.forEach((item, i) => {
    if (labeled && labeled[i] === false) {
      sums.unlabeled += 1;
      return;
    }
    sums.succeeded += 1;
    sums.similarity += item.similarity;
    sums.aligned_similarity += item.aligned_similarity;
  });
  return { item_metrics: itemMetrics, ...outcomeFigures(sums), metric_type: 'levenshtein' };
}

/** Sums over the scored documents of an iteration: what {@link metricMeans} divides. */
export interface SimilaritySums {
  /** Sum of the scored documents' `similarity`. */
  similarity: number;
  /** Sum of the scored documents' `aligned_similarity`. */
  aligned_similarity: number;
  /** How many documents were scored (in the service: those whose extraction succeeded). */
  scored: number;
}

/**
 * Means over the scored documents only (the figure `succeeded_mean_similarity` gives): 1 when there are no
 * documents at all; 0 when there are some but none was scored. Iterations use {@link outcomeFigures}.
 *
 * @example
 * metricMeans({ similarity: 1.5, aligned_similarity: 2, scored: 2 }, 3); // { mean_similarity: 0.75, aligned_mean_similarity: 1 }
 */
export function metricMeans(
  sums: SimilaritySums,
  documentCount: number,
): Pick<MetricResults, 'mean_similarity' | 'aligned_mean_similarity'> {
  if (sums.scored <= 0) {
    const empty = documentCount === 0 ? 1 : 0;
    return { mean_similarity: empty, aligned_mean_similarity: empty };
  }
  return {
    mean_similarity: sums.similarity / sums.scored,
    aligned_mean_similarity: sums.aligned_similarity / sums.scored,
  };
}

/**
 * What an iteration's figures are made of (docs/spec/metrics.md section 5). Every count but `documents` and
 * `unlabeled` is over labeled documents only; a labeled document neither succeeded nor failed is pending.
 */
export interface OutcomeSums {
  /** The evaluation's documents. */
  documents: number;
  /** Documents without ground truth ({@link isLabeled} false), whatever their outcome. */
  unlabeled: number;
  /** Labeled documents with a prediction. */
  succeeded: number;
  /** Labeled documents whose extraction failed (no prediction). */
  failed: number;
  /** Sum of the labeled succeeded documents' `similarity` / `aligned_similarity`. */
  similarity: number;
  aligned_similarity: number;
  /** Succeeded predictions (labeled or not) checked against the schema, and how many of them matched it. */
  checked?: number;
  schema_valid?: number;
  /** The iteration is queued or running: more outcomes may come. */
  running?: boolean;
}

export const NO_OUTCOMES: Readonly<OutcomeSums> = Object.freeze({
  documents: 0,
  unlabeled: 0,
  succeeded: 0,
  failed: 0,
  similarity: 0,
  aligned_similarity: 0,
});

/** The figures of `metric_results` besides `item_metrics` and `metric_type`. */
export type OutcomeFigures = Omit<MetricResults, 'item_metrics' | 'metric_type'>;

/**
 * An iteration's honest figures (docs/spec/metrics.md section 5): `mean_similarity` and `aligned_mean_similarity`
 * over the labeled documents that finished, a failed one counting 0 (1 when the evaluation has no documents, 0 when
 * it has some but none counted); `succeeded_mean_similarity` over the labeled succeeded ones (null when none);
 * `coverage` = succeeded / (succeeded + failed) (null when none finished); `schema_valid_rate` over the succeeded
 * predictions (null when none was checked); `partial` when labeled documents are still without an outcome or the
 * run goes on.
 *
 * @example
 * outcomeFigures({ documents: 10, unlabeled: 0, succeeded: 1, failed: 9, similarity: 1, aligned_similarity: 1 });
 * // mean_similarity 0.1, succeeded_mean_similarity 1, coverage 0.1
 */
export function outcomeFigures(sums: OutcomeSums): OutcomeFigures {
  const finished = sums.succeeded + sums.failed;
  const labeled = Math.max(0, sums.documents - sums.unlabeled);
  const pending = Math.max(0, labeled - finished);
  const counted = (sum: number) => (finished > 0 ? sum / finished : sums.documents === 0 ? 1 : 0);
  const checked = sums.checked ?? 0;
  return {
    mean_similarity: counted(sums.similarity),
    aligned_mean_similarity: counted(sums.aligned_similarity),
    succeeded_mean_similarity: sums.succeeded > 0 ? sums.similarity / sums.succeeded : null,
    succeeded_aligned_mean_similarity: sums.succeeded > 0 ? sums.aligned_similarity / sums.succeeded : null,
    coverage: finished > 0 ? sums.succeeded / finished : null,
    schema_valid_rate: checked > 0 ? (sums.schema_valid ?? 0) / checked : null,
    counts: { documents: sums.documents, succeeded: sums.succeeded, failed: sums.failed, unlabeled: sums.unlabeled, pending },
    partial: pending > 0 || sums.running === true,
  };
}

/**
 * An iteration's `metric_results`: one ItemMetric per document in document order, `predictions[i]` being the
 * prediction for `documents[i]`. Throws `validation_error` when the two lists differ in length or a value is not
 * a JSON object.
 *
 * @example
 * const results = computeMetricResults(evaluation.documents.map((d) => ({ id: d.id, name: d.mime_data.filename,
 *   annotation: d.annotation })), iteration.predictions.map((p) => p.prediction));
 * results.mean_similarity;
 */
export function computeMetricResults(documents: MetricDocument[], predictions: JsonObject[]): MetricResults {
  if (!Array.isArray(documents) || !Array.isArray(predictions) || documents.length !== predictions.length) {
    throw validationError('predictions: one prediction per document is required, in document order.', [
      { path: 'predictions', message: `expected ${Array.isArray(documents) ? documents.length : 0} predictions` },
    ]);
  }
  return metricResultsFromItems(
    documents.map((document, i) => {
      const figures = compareDocumentsAt(document?.annotation, predictions[i], `documents.${i}.annotation`, `predictions.${i}`);
      return { id: document.id, name: document.name, ...figures };
    }),
    documents.map((document) => isLabeled(document.annotation)),
  );
}
