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
 * Means over per-document figures (docs/spec/metrics.md section 5): a service that caches each document's ItemMetric only
 * recomputes the one that changed and calls this. Means are 1 when there are no documents.
 *
 * @example
 * metricResultsFromItems([]); // { item_metrics: [], mean_similarity: 1, aligned_mean_similarity: 1, metric_type: 'levenshtein' }
 */
export function metricResultsFromItems(itemMetrics: ItemMetric[]): MetricResults {
  let plain = 0;
  let aligned = 0;
  for (const item of itemMetrics) {
    plain += item.similarity;
    aligned += item.aligned_similarity;
  }
  const n = itemMetrics.length;
  return {
    item_metrics: itemMetrics,
    ...metricMeans({ similarity: plain, aligned_similarity: aligned, scored: n }, n),
    metric_type: 'levenshtein',
  };
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
 * The two means of an iteration from running sums (docs/spec/service.md, Iterations): over the scored documents
 * only, so a service can keep sums per iteration and never re-read every document. 1 when the evaluation has no
 * documents at all; 0 when it has some but none was scored (every extraction failed or is pending).
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
  );
}
