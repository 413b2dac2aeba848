/**
 * The fixed bounds of docevals, one place (docs/spec/limits.md has the table). Input schemas, the body readers of
 * the transports and the metrics read them; a host can lower the per-evaluation counts with `createDocevals({ limits })`
 * but not raise them past what the schemas accept.
 */
export const LIMITS = Object.freeze({
  /** Documents in one request (`documents`, `predictions`, `document_ids`): the schema's cap. */
  maxDocumentsPerRequest: 10_000,
  /** Imported iterations in one `POST /v1/evals`. */
  maxIterationsPerRequest: 1_000,
  /** `consensus_details` entries of one metadata object. */
  maxConsensusDetails: 64,
  /** Objects and arrays in one JSON request body, counted before it is parsed. */
  maxJsonContainersPerBody: 1_000_000,
  /** Validation issues listed in one error; the rest are counted in one more issue. */
  maxIssues: 100,
  /** Work one document's alignment may spend (docs/spec/metrics.md section 4): item pairs weighed by their leaves. */
  maxAlignmentWork: 250_000,
  /** Levenshtein work of one document (docs/spec/metrics.md section 4): character pairs, n x m per distance computed. */
  maxTextWork: 1_000_000_000,
  /**
   * Items of one list in an annotation import's CSV (docs/spec/analysis.md): a column's list index is below it (and
   * below the schema's `maxItems`), checked before the list is built.
   */
  maxImportListItems: 1_000,
  /** Cells (rows x header columns) of one CSV annotation import: past it the import is refused before more is parsed. */
  maxImportCells: 1_000_000,
  /**
   * Heavy reads of one organization running at once (a whole evaluation with its documents, an export streaming);
   * more wait their turn (docs/spec/limits.md).
   */
  maxHeavyReadsPerOrganization: 2,
  /** Calls in one tRPC batch. */
  maxBatchSize: 16,
});
