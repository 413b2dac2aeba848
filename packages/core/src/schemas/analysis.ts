import { z } from 'zod';
import { described } from './described.js';
import { evaluationIdParam, idParam, iterationIdParam } from './json.js';
import { iterationStatusSchema } from './iterations.js';

// Shapes of the analyses (docs/spec/analysis.md). The analysis module's types are inferred from these, so the
// OpenAPI document, the tRPC router and the code agree by construction.

const nullableNumber = z.number().nullable();
/** A document's outcome in an iteration; `unlabeled`: the document has no ground truth (in no mean). */
const outcomeStatus = z.enum(['succeeded', 'failed', 'pending', 'unlabeled']);

/** Documents by outcome (docs/spec/analysis.md, Which documents count); all but `unlabeled` are labeled ones. */
export const analysisCountsSchema = z.object({
  succeeded: described(z.number().int(), 'Labeled documents with a prediction.'),
  failed: described(z.number().int(), 'Labeled documents whose extraction failed: each counts 0.'),
  unlabeled: described(z.number().int(), 'Documents without ground truth: in no figure.'),
  pending: described(z.number().int(), 'Labeled documents without a prediction yet: in no figure.'),
}).meta({ description: 'Documents by outcome (docs/spec/analysis.md).' });
export type AnalysisCounts = z.infer<typeof analysisCountsSchema>;

/** One reliability bin: leaves whose likelihood is in [lower, upper) ([0.9, 1] for the last). */
export const calibrationBinSchema = z.object({
  lower: described(z.number(), 'Lowest likelihood of the bin (included).'),
  upper: described(z.number(), 'Highest likelihood of the bin (excluded, except 1 in the last bin).'),
  count: described(z.number().int(), 'Scored leaves whose likelihood falls in the bin.'),
  /** Null when the bin is empty. */
  mean_likelihood: described(nullableNumber, 'Their mean likelihood; null when the bin is empty.'),
  /** Share of the bin's leaves that scored 1; null when empty. */
  exact_rate: described(nullableNumber, 'Share of them that scored 1 (exact); null when the bin is empty.'),
}).meta({ description: 'One bin of a reliability table.' });

/** Reliability table (10 bins of 0.1) and expected calibration error of likelihoods (docs/spec/analysis.md). */
export const calibrationSchema = z.object({
  ece: described(z.number(), 'Expected calibration error: Σ count/total × |mean_likelihood − exact_rate| over the bins, 0 (calibrated) to 1.'),
  bins: z.array(calibrationBinSchema),
}).meta({ description: 'How far the likelihoods (consensus or logprobs) match how often the fields are exact (docs/spec/analysis.md).' });
export type Calibration = z.infer<typeof calibrationSchema>;

/** A paired delta over documents with its 95% bootstrap interval (docs/spec/analysis.md, Comparison). */
export const pairedDeltaSchema = z.object({
  n: described(z.number().int(), 'Documents paired (in both iterations).'),
  delta: described(z.number(), 'Mean of head − base over them.'),
  ci_low: described(z.number(), 'Lower end of the 95% paired bootstrap interval (2,000 resamples, seeded: the same input gives the same interval).'),
  ci_high: described(z.number(), 'Upper end of the interval.'),
  /** The interval excludes 0. */
  significant: described(z.boolean(), 'True when the interval excludes 0.'),
}).meta({ description: 'A paired delta with its 95% bootstrap confidence interval (docs/spec/analysis.md, Comparison).' });
export type PairedDelta = z.infer<typeof pairedDeltaSchema>;

export const fieldStatsSchema = z.object({
  field: described(z.string(), 'The field: a leaf path of the metrics with list items written `*` (`line_items.*.amount`).'),
  documents: described(z.number().int(), 'Labeled documents that finished in which the field was scored (a failed one: every field of its annotation).'),
  mean_similarity: described(nullableNumber, 'Mean over those documents of the field\'s mean score in each, a failed document counting 0; null when none scored it.'),
  aligned_mean_similarity: described(nullableNumber, 'The same over the aligned scores (list items matched ignoring order).'),
  exact: described(z.number().int(), 'Documents where every score of the field is 1.'),
  missing: described(z.number().int(), 'Documents where the annotation fills the field and the prediction does not.'),
  unexpected: described(z.number().int(), 'Documents where the prediction fills the field and the annotation does not.'),
  partial: described(z.number().int(), 'The other documents: both sides have something, not all of it right.'),
  /** Documents whose extraction failed: in `documents`, every field of their annotation counting 0. */
  failed: described(z.number().int(), 'Documents whose extraction failed: the field counts 0 in them.'),
  /** The field's likelihoods against its exact matches; null when no prediction carried likelihoods for it. */
  calibration: calibrationSchema.nullable(),
}).meta({ description: 'How one field fared over an iteration\'s labeled documents.' });
export type FieldStats = z.infer<typeof fieldStatsSchema>;

export const fieldSummarySchema = z.object({
  fields: z.array(fieldStatsSchema),
  /** Labeled documents summarized: succeeded and failed ones. */
  documents: described(z.number().int(), 'Labeled documents summarized: succeeded ones, and failed ones counting 0.'),
  counts: analysisCountsSchema,
  /** Every scored leaf with a likelihood, all fields together; null when the iteration has no likelihoods. */
  calibration: calibrationSchema.nullable(),
});
export type FieldSummary = z.infer<typeof fieldSummarySchema>;

export const iterationFieldsSchema = fieldSummarySchema.extend({
  iteration_id: described(z.string(), 'The iteration summarized.'),
}).meta({ description: 'Per-field summary of an iteration.' });
export type IterationFields = z.infer<typeof iterationFieldsSchema>;

export const fieldDeltaSchema = z.object({
  field: described(z.string(), 'The field: a leaf path of the metrics with list items written `*` (`line_items.*.amount`).'),
  documents: described(z.number().int(), 'Compared documents in which the field was scored on both sides.'),
  base_mean: described(nullableNumber, 'The field\'s mean in the base iteration, over the compared documents.'),
  head_mean: described(nullableNumber, 'The field\'s mean in the head iteration, over the compared documents.'),
  delta: described(nullableNumber, 'head_mean − base_mean: below 0 the field got worse.'),
  base_aligned_mean: described(nullableNumber, 'The aligned mean in the base iteration.'),
  head_aligned_mean: described(nullableNumber, 'The aligned mean in the head iteration.'),
  aligned_delta: described(nullableNumber, 'head_aligned_mean − base_aligned_mean.'),
  /** Over the compared documents that scored the field on both sides; null when none did. */
  paired: pairedDeltaSchema.nullable(),
}).meta({ description: 'One field in a comparison of two iterations.' });
export type FieldDelta = z.infer<typeof fieldDeltaSchema>;

export const documentDeltaSchema = z.object({
  document_id: described(z.string(), 'The document (its `file_id`).'),
  filename: described(z.string(), 'Its file name.'),
  base_similarity: described(z.number(), 'Its similarity in the base iteration.'),
  head_similarity: described(z.number(), 'Its similarity in the head iteration.'),
  delta: described(z.number(), 'head_similarity − base_similarity.'),
  base_aligned_similarity: described(z.number(), 'Its aligned similarity in the base iteration.'),
  head_aligned_similarity: described(z.number(), 'Its aligned similarity in the head iteration.'),
  aligned_delta: described(z.number(), 'head_aligned_similarity − base_aligned_similarity.'),
}).meta({ description: 'One document in a comparison of two iterations.' });
export type DocumentDelta = z.infer<typeof documentDeltaSchema>;

export const excludedDocumentSchema = z.object({
  document_id: described(z.string(), 'The document (its `file_id`).'),
  filename: described(z.string(), 'Its file name.'),
  base_status: described(outcomeStatus, 'Its outcome in the base iteration: `succeeded`, `failed`, `pending`, or `unlabeled` (no ground truth).'),
  head_status: described(outcomeStatus, 'Its outcome in the head iteration.'),
}).meta({ description: 'A document left out of a comparison: unlabeled, or pending in one of the iterations.' });
export type ExcludedDocument = z.infer<typeof excludedDocumentSchema>;

export const meanDeltaSchema = z.object({
  base: described(nullableNumber, 'The figure of the base iteration (null when unknown).'),
  head: described(nullableNumber, 'The figure of the head iteration (null when unknown).'),
  delta: described(nullableNumber, 'head − base; null when either is null.'),
  /** For the means: the paired delta over the compared documents with its interval (null without documents). */
  paired: pairedDeltaSchema.nullable().optional(),
}).meta({ description: 'One figure of two iterations and its change.' });
export type MeanDelta = z.infer<typeof meanDeltaSchema>;

export const iterationComparisonSchema = z.object({
  threshold: described(z.number(), 'A change of a document\'s similarity smaller than this counts as unchanged.'),
  /** Labeled documents finished (succeeded or failed) in both iterations; a failed one counts 0. */
  compared_documents: described(z.number().int(), 'Labeled documents finished (succeeded or failed) in both iterations, a failed one counting 0: every mean here is over them.'),
  /** Each iteration's documents by outcome. */
  base_counts: analysisCountsSchema,
  head_counts: analysisCountsSchema,
  mean_similarity: meanDeltaSchema,
  aligned_mean_similarity: meanDeltaSchema,
  cost: meanDeltaSchema,
  failures: meanDeltaSchema,
  fields: z.array(fieldDeltaSchema),
  moved_fields: z.array(fieldDeltaSchema),
  documents: z.array(documentDeltaSchema),
  regressed: z.array(documentDeltaSchema),
  improved: z.array(documentDeltaSchema),
  excluded: z.array(excludedDocumentSchema),
});
export type IterationComparison = z.infer<typeof iterationComparisonSchema>;

export const evaluationComparisonSchema = iterationComparisonSchema.extend({
  base_iteration_id: described(z.string(), 'The iteration compared from.'),
  head_iteration_id: described(z.string(), 'The iteration compared to.'),
}).meta({ description: 'Two iterations of one evaluation compared field by field and document by document.' });
export type EvaluationComparison = z.infer<typeof evaluationComparisonSchema>;

export const LEADERBOARD_SORT_KEYS = ['mean_similarity', 'aligned_mean_similarity', 'cost', 'duration_ms', 'failed', 'created_at'] as const;
export const leaderboardSortSchema = z.enum(LEADERBOARD_SORT_KEYS);
export type LeaderboardSortKey = z.infer<typeof leaderboardSortSchema>;

export const leaderboardRowSchema = z.object({
  rank: described(z.number().int(), '1 for the first row in the chosen order.'),
  iteration_id: described(z.string(), 'The iteration.'),
  /** The iteration's name (`iterations.updateMetadata`), or null: what to show instead of its id. */
  name: described(z.string().nullable(), 'Its name (`PATCH .../metadata`), or null: what to show instead of its id.'),
  model: described(z.string(), 'Its model.'),
  settings: described(z.record(z.string(), z.unknown()), 'Its inference settings that differ between the listed iterations.'),
  /** Failure-counting, over labeled documents (docs/spec/metrics.md section 5). */
  mean_similarity: described(nullableNumber, 'Failure-counting mean similarity over its labeled documents (the ranking figure); null when none finished.'),
  aligned_mean_similarity: described(nullableNumber, 'The same over aligned similarities.'),
  succeeded_mean_similarity: described(nullableNumber, 'Mean similarity over its labeled succeeded documents only; null when none.'),
  coverage: described(nullableNumber, 'succeeded / (succeeded + failed); null when none finished.'),
  succeeded: described(z.number().int(), 'Labeled documents whose extraction succeeded.'),
  failed: described(z.number().int(), 'Labeled documents whose extraction failed.'),
  pending: described(z.number().int(), 'Labeled documents without a prediction yet.'),
  unlabeled: described(z.number().int(), 'Documents without ground truth: in no figure.'),
  partial: described(z.boolean(), 'True when labeled documents have no outcome yet.'),
  cost: described(nullableNumber, 'Summed api cost; null when no price was known.'),
  duration_ms: described(nullableNumber, 'finished_at − started_at in milliseconds; null when unknown.'),
  created_at: z.string(),
}).meta({ description: 'One completed iteration on the leaderboard.' });
export type LeaderboardRow = z.infer<typeof leaderboardRowSchema>;

export const leaderboardSchema = z.object({
  sort: described(leaderboardSortSchema, 'The figure the rows are ordered by.'),
  order: described(z.enum(['asc', 'desc']), '`asc` or `desc`.'),
  differing_settings: described(z.array(z.string()), 'Names of the inference settings that differ between the iterations (the keys of each row\'s `settings`).'),
  rows: z.array(leaderboardRowSchema),
}).meta({ description: 'An evaluation\'s completed iterations ranked.' });
export type Leaderboard = z.infer<typeof leaderboardSchema>;

// Inputs.

export const iterationFieldsInputSchema = z.object({ evaluation_id: evaluationIdParam, iteration_id: iterationIdParam });
export type IterationFieldsInput = z.input<typeof iterationFieldsInputSchema>;

export const compareInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  base: described(idParam, 'The iteration to compare from.'),
  head: described(idParam, 'The iteration to compare to.'),
  /** Improvement or regression smaller than this counts as unchanged. */
  threshold: described(z.coerce.number().min(0).max(1).default(0.01), 'A change of a document\'s similarity smaller than this counts as unchanged, 0 to 1 (0.01).'),
});
export type CompareInput = z.input<typeof compareInputSchema>;

/**
 * `GET /v1/evals/{id}/matrix?limit=&after=` (tRPC `evals.matrix`): one page of the evaluation's documents, in its
 * document order, each with its similarity in every iteration (docs/spec/analysis.md, Matrix): what a documents x
 * iterations grid needs, without the predictions' contents.
 */
export const matrixInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  limit: described(z.coerce.number().int().min(1).max(1000).default(100), 'Documents per page, 1 to 1,000 (100).'),
  /** A document id: the page starts just after it. */
  after: described(idParam.optional(), 'A document id: the page starts just after it (`list_metadata.after` of the previous page).'),
});
export type MatrixInput = z.input<typeof matrixInputSchema>;

export const matrixIterationSchema = z.object({
  id: described(z.string(), 'The iteration.'),
  /** The iteration's name (`iterations.updateMetadata`), or null: a column's header. */
  name: described(z.string().nullable(), 'Its name (`PATCH .../metadata`), or null: the column\'s header instead of its id.'),
  model: described(z.string(), 'Its model.'),
  status: described(iterationStatusSchema, 'Its status (`queued`, `running`, `completed`, `failed`, `cancelled`).'),
}).meta({ description: 'A column of the matrix: one iteration.' });

export const matrixRowSchema = z.object({
  document_id: described(z.string(), 'The document.'),
  filename: described(z.string(), 'Its file name.'),
  /**
   * One entry per iteration, in the order of `iterations`: the document's similarity there (its current metrics: an
   * annotation edited since is accounted for), `null` when its extraction failed, absent (`null` too in JSON) when it
   * has no prediction there: `statuses` tells them apart.
   */
  similarities: z.array(nullableNumber),
  /** One per iteration: `succeeded`, `failed`, or `pending` (no prediction). */
  statuses: z.array(z.enum(['succeeded', 'failed', 'pending'])),
  /** Whether the document has ground truth: an unlabeled one is in no iteration's mean. */
  labeled: described(z.boolean(), 'Whether the document has ground truth; an unlabeled one is in no iteration\'s mean.'),
}).meta({ description: 'A row of the matrix: one document.' });
export type MatrixRow = z.infer<typeof matrixRowSchema>;

export const matrixSchema = z.object({
  /** The evaluation's iterations, oldest first: the columns. */
  iterations: z.array(matrixIterationSchema),
  data: z.array(matrixRowSchema),
  list_metadata: z.object({ before: z.string().nullable(), after: z.string().nullable() }),
}).meta({ description: 'One page of an evaluation\'s documents x iterations similarities.' });
export type Matrix = z.infer<typeof matrixSchema>;

export const leaderboardInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  sort: described(leaderboardSortSchema.default('mean_similarity'), '`mean_similarity` (the default), `aligned_mean_similarity`, `cost`, `duration_ms`, `failed` or `created_at`.'),
  order: described(z.enum(['asc', 'desc']).optional(), '`asc` or `desc`; by default descending for means, ascending for cost, duration and failures.'),
});
export type LeaderboardInput = z.input<typeof leaderboardInputSchema>;

export const exportFormatSchema = z.enum(['csv', 'jsonl']);
export type ExportFormat = z.infer<typeof exportFormatSchema>;

export const exportInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  iteration_id: iterationIdParam,
  format: described(exportFormatSchema.default('csv'), '`csv` (the default) or `jsonl`.'),
  /**
   * CSV only: true writes text cells exactly as stored; by default a cell beginning with `=`, `+`, `-`, `@`, a tab or
   * a carriage return gets a leading `'` (OWASP, CSV injection). `"true"`/`"false"` as a query parameter.
   */
  raw: described(z.union([z.boolean(), z.enum(['true', 'false'])]).optional(), 'CSV only. By default a text cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `\'` so that a spreadsheet cannot run it as a formula (OWASP, CSV injection); `true` writes every cell exactly as stored. JSONL is always raw.'),
});
export type ExportInput = z.input<typeof exportInputSchema>;

/** Largest annotations file an import takes (characters). */
export const MAX_IMPORT_TEXT = 32 * 1024 * 1024;
/** Most rows one import applies. */
export const MAX_IMPORT_ROWS = 10_000;

export const importAnnotationsInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  format: described(z.enum(['jsonl', 'csv']), '`jsonl` (one `{"document_id" | "filename", "annotation"}` per line) or `csv` (a `document_id` or `filename` column and one column per leaf path).'),
  /** The file's text. */
  content: described(z.string().max(MAX_IMPORT_TEXT), 'The file\'s text, at most 32 MiB.'),
  /** Check each annotation against the evaluation's schema (required fields not enforced). */
  validate: described(z.boolean().default(true), 'Check each annotation against the evaluation\'s JSON schema (`required` not enforced). Default true.'),
  /**
   * A preview: every row is checked (its document found by id or filename, its annotation against the schema) and
   * answered as the import would answer it, and nothing is written.
   */
  dry_run: described(z.boolean().default(false), 'A preview: every row is checked and answered as the import would answer it, and nothing is written. Default false.'),
});
export type ImportAnnotationsInput = z.input<typeof importAnnotationsInputSchema>;

export const importRowResultSchema = z.object({
  row: described(z.number().int(), 'The line (JSONL) or record after the header (CSV), from 1.'),
  document_id: described(z.string().nullable(), 'The document the row updated or named; null when it named none.'),
  filename: described(z.string().nullable(), 'The file name the row named, if it named one.'),
  status: described(z.enum(['updated', 'refused']), '`updated`, or `refused` (nothing of the row was applied).'),
  issues: z.array(z.object({ path: z.string(), message: z.string() })),
}).meta({ description: 'What became of one row of an annotations file.' });
export type ImportRowResult = z.infer<typeof importRowResultSchema>;

export const importAnnotationsResultSchema = z.object({
  /** `true` for a preview: `updated` counts the rows that would be written, and nothing was. */
  dry_run: described(z.boolean(), 'True for a preview (`dry_run`): nothing was written, `updated` counts the rows that would be.'),
  updated: described(z.number().int(), 'Rows applied (in a preview: that would be applied).'),
  refused: described(z.number().int(), 'Rows refused.'),
  rows: z.array(importRowResultSchema),
}).meta({ description: 'The outcome of an annotations import.' });
export type ImportAnnotationsResult = z.infer<typeof importAnnotationsResultSchema>;
