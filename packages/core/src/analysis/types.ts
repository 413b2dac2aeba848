import type { JsonObject } from '../json/assert-json.js';
import type { DocumentComparison } from '../metrics/compare-documents.js';

/** A document as the analyses read it. */
export interface AnalysisDocument {
  id: string;
  filename: string;
  annotation: JsonObject;
}

/**
 * One document's outcome in one iteration. `pending`: the iteration has no prediction for it yet (added later, or not
 * run yet); `failed`: the extraction failed. Only `succeeded` documents carry figures that analyses compare.
 */
export type AnalysisPrediction =
  | {
      status: 'succeeded';
      prediction: JsonObject;
      metrics: DocumentComparison;
      cost: number | null;
      /** The prediction's `metadata.likelihoods` (same shape as the prediction), when it has some. */
      likelihoods?: JsonObject | null;
    }
  | { status: 'failed'; prediction: JsonObject; metrics: DocumentComparison | null; cost: number | null; error: string | null }
  | { status: 'pending' };

export type AnalysisStatus = AnalysisPrediction['status'];
