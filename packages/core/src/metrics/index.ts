export { leafSimilarity } from './leaf-similarity.js';
export { normalizeText } from './normalize-text.js';
export { compareDocuments, documentSimilarity, type DocumentComparison } from './compare-documents.js';
export type { SimilarityTree } from './section-walk.js';
export { alignPrediction, matchItems, type ItemPair } from './align-prediction.js';
export { solveAssignment } from './solve-assignment.js';
export {
  computeItemMetric,
  computeMetricResults,
  isLabeled,
  metricMeans,
  NO_OUTCOMES,
  outcomeFigures,
  metricResultsFromItems,
  type MetricDocument,
  type OutcomeFigures,
  type OutcomeSums,
  type SimilaritySums,
} from './metric-results.js';
