import { z } from 'zod';
import { evaluationIdParam, idParam, iterationIdParam } from './json.js';
import { iterationStatusSchema } from './iterations.js';

// Shapes of the analyses (docs/spec/analysis.md). The analysis module's types are inferred from these, so the
// OpenAPI document, the tRPC router and the code agree by construction.

const nullableNumber = z.number().nullable();
/** A document's outcome in an iteration; `unlabeled`: the document has no ground truth (in no mean). */
const outcomeStatus = z.enum(['succeeded', 'failed', 'pending', 'unlabeled']);

/** Documents by outcome (docs/spec/analysis.md, Which documents count); all but `unlabeled` are labeled ones. */
export const analysisCountsSchema = z.object({
  succeeded: z.number().int(),
  failed: z.number().int(),
  unlabeled: z.number().int(),
  pending: z.number().int(),
});
export type AnalysisCounts = z.infer<typeof analysisCountsSchema>;

/** One reliability bin: leaves whose likelihood is in [lower, upper) ([0.9, 1] for the last). */
export const calibrationBinSchema = z.object({
  lower: z.number(),
  upper: z.number(),
  count: z.number().int(),
  /** Null when the bin is empty. */
  mean_likelihood: nullableNumber,
  /** Share of the bin's leaves that scored 1; null when empty. */
  exact_rate: nullableNumber,
});

/** Reliability table (10 bins of 0.1) and expected calibration error of likelihoods (docs/spec/analysis.md). */
export const calibrationSchema = z.object({ ece: z.number(), bins: z.array(calibrationBinSchema) });
export type Calibration = z.infer<typeof calibrationSchema>;

/** A paired delta over documents with its 95% bootstrap interval (docs/spec/analysis.md, Comparison). */
export const pairedDeltaSchema = z.object({
  n: z.number().int(),
  delta: z.number(),
  ci_low: z.number(),
  ci_high: z.number(),
  /** The interval excludes 0. */
  significant: z.boolean(),
});
export type PairedDelta = z.infer<typeof pairedDeltaSchema>;

export const fieldStatsSchema = z.object({
  field: z.string(),
  documents: z.number().int(),
  mean_similarity: nullableNumber,
  aligned_mean_similarity: nullableNumber,
  exact: z.number().int(),
  missing: z.number().int(),
  unexpected: z.number().int(),
  partial: z.number().int(),
  /** Documents whose extraction failed: in `documents`, every field of their annotation counting 0. */
  failed: z.number().int(),
  /** The field's likelihoods against its exact matches; null when no prediction carried likelihoods for it. */
  calibration: calibrationSchema.nullable(),
});
export type FieldStats = z.infer<typeof fieldStatsSchema>;

export const fieldSummarySchema = z.object({
  fields: z.array(fieldStatsSchema),
  /** Labeled documents summarized: succeeded and failed ones. */
  documents: z.number().int(),
  counts: analysisCountsSchema,
  /** Every scored leaf with a likelihood, all fields together; null when the iteration has no likelihoods. */
  calibration: calibrationSchema.nullable(),
});
export type FieldSummary = z.infer<typeof fieldSummarySchema>;

export const iterationFieldsSchema = fieldSummarySchema.extend({ iteration_id: z.string() });
export type IterationFields = z.infer<typeof iterationFieldsSchema>;

export const fieldDeltaSchema = z.object({
  field: z.string(),
  documents: z.number().int(),
  base_mean: nullableNumber,
  head_mean: nullableNumber,
  delta: nullableNumber,
  base_aligned_mean: nullableNumber,
  head_aligned_mean: nullableNumber,
  aligned_delta: nullableNumber,
  /** Over the compared documents that scored the field on both sides; null when none did. */
  paired: pairedDeltaSchema.nullable(),
});
export type FieldDelta = z.infer<typeof fieldDeltaSchema>;

export const documentDeltaSchema = z.object({
  document_id: z.string(),
  filename: z.string(),
  base_similarity: z.number(),
  head_similarity: z.number(),
  delta: z.number(),
  base_aligned_similarity: z.number(),
  head_aligned_similarity: z.number(),
  aligned_delta: z.number(),
});
export type DocumentDelta = z.infer<typeof documentDeltaSchema>;

export const excludedDocumentSchema = z.object({
  document_id: z.string(),
  filename: z.string(),
  base_status: outcomeStatus,
  head_status: outcomeStatus,
});
export type ExcludedDocument = z.infer<typeof excludedDocumentSchema>;

export const meanDeltaSchema = z.object({
  base: nullableNumber,
  head: nullableNumber,
  delta: nullableNumber,
  /** For the means: the paired delta over the compared documents with its interval (null without documents). */
  paired: pairedDeltaSchema.nullable().optional(),
});
export type MeanDelta = z.infer<typeof meanDeltaSchema>;

export const iterationComparisonSchema = z.object({
  threshold: z.number(),
  /** Labeled documents finished (succeeded or failed) in both iterations; a failed one counts 0. */
  compared_documents: z.number().int(),
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
  base_iteration_id: z.string(),
  head_iteration_id: z.string(),
});
export type EvaluationComparison = z.infer<typeof evaluationComparisonSchema>;

export const LEADERBOARD_SORT_KEYS = ['mean_similarity', 'aligned_mean_similarity', 'cost', 'duration_ms', 'failed', 'created_at'] as const;
export const leaderboardSortSchema = z.enum(LEADERBOARD_SORT_KEYS);
export type LeaderboardSortKey = z.infer<typeof leaderboardSortSchema>;

export const leaderboardRowSchema = z.object({
  rank: z.number().int(),
  iteration_id: z.string(),
  /** The iteration's name (`iterations.updateMetadata`), or null: what to show instead of its id. */
  name: z.string().nullable().meta({ description: 'The iteration\'s name (`PATCH .../metadata`), or null: what to show instead of its id.' }),
  model: z.string(),
  settings: z.record(z.string(), z.unknown()),
  /** Failure-counting, over labeled documents (docs/spec/metrics.md section 5). */
  mean_similarity: nullableNumber,
  aligned_mean_similarity: nullableNumber,
  succeeded_mean_similarity: nullableNumber,
  coverage: nullableNumber,
  succeeded: z.number().int(),
  failed: z.number().int(),
  pending: z.number().int(),
  unlabeled: z.number().int(),
  partial: z.boolean(),
  cost: nullableNumber,
  duration_ms: nullableNumber,
  created_at: z.string(),
});
export type LeaderboardRow = z.infer<typeof leaderboardRowSchema>;

export const leaderboardSchema = z.object({
  sort: leaderboardSortSchema,
  order: z.enum(['asc', 'desc']),
  differing_settings: z.array(z.string()),
  rows: z.array(leaderboardRowSchema),
});
export type Leaderboard = z.infer<typeof leaderboardSchema>;

// Inputs.

export const iterationFieldsInputSchema = z.object({ evaluation_id: evaluationIdParam, iteration_id: iterationIdParam });
export type IterationFieldsInput = z.input<typeof iterationFieldsInputSchema>;

export const compareInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  base: idParam,
  head: idParam,
  /** Improvement or regression smaller than this counts as unchanged. */
  threshold: z.coerce.number().min(0).max(1).default(0.01),
});
export type CompareInput = z.input<typeof compareInputSchema>;

/**
 * `GET /v1/evals/{id}/matrix?limit=&after=` (tRPC `evals.matrix`): one page of the evaluation's documents, in its
 * document order, each with its similarity in every iteration (docs/spec/analysis.md, Matrix): what a documents x
 * iterations grid needs, without the predictions' contents.
 */
export const matrixInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** A document id: the page starts just after it. */
  after: idParam.optional(),
});
export type MatrixInput = z.input<typeof matrixInputSchema>;

export const matrixIterationSchema = z.object({
  id: z.string(),
  /** The iteration's name (`iterations.updateMetadata`), or null: a column's header. */
  name: z.string().nullable().meta({ description: 'The iteration\'s name (`PATCH .../metadata`), or null: the column\'s header instead of its id.' }),
  model: z.string(),
  status: iterationStatusSchema,
});

export const matrixRowSchema = z.object({
  document_id: z.string(),
  filename: z.string(),
  /**
   * One entry per iteration, in the order of `iterations`: the document's similarity there (its current metrics: an
   * annotation edited since is accounted for), `null` when its extraction failed, absent (`null` too in JSON) when it
   * has no prediction there: `statuses` tells them apart.
   */
  similarities: z.array(nullableNumber),
  /** One per iteration: `succeeded`, `failed`, or `pending` (no prediction). */
  statuses: z.array(z.enum(['succeeded', 'failed', 'pending'])),
  /** Whether the document has ground truth: an unlabeled one is in no iteration's mean. */
  labeled: z.boolean(),
});
export type MatrixRow = z.infer<typeof matrixRowSchema>;

export const matrixSchema = z.object({
  /** The evaluation's iterations, oldest first: the columns. */
  iterations: z.array(matrixIterationSchema),
  data: z.array(matrixRowSchema),
  list_metadata: z.object({ before: z.string().nullable(), after: z.string().nullable() }),
});
export type Matrix = z.infer<typeof matrixSchema>;

export const leaderboardInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  sort: leaderboardSortSchema.default('mean_similarity'),
  order: z.enum(['asc', 'desc']).optional(),
});
export type LeaderboardInput = z.input<typeof leaderboardInputSchema>;

export const exportFormatSchema = z.enum(['csv', 'jsonl']);
export type ExportFormat = z.infer<typeof exportFormatSchema>;

export const exportInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  iteration_id: iterationIdParam,
  format: exportFormatSchema.default('csv'),
  /**
   * CSV only: true writes text cells exactly as stored; by default a cell beginning with `=`, `+`, `-`, `@`, a tab or
   * a carriage return gets a leading `'` (OWASP, CSV injection). `"true"`/`"false"` as a query parameter.
   */
  raw: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
});
export type ExportInput = z.input<typeof exportInputSchema>;

/** Largest annotations file an import takes (characters). */
export const MAX_IMPORT_TEXT = 32 * 1024 * 1024;
/** Most rows one import applies. */
export const MAX_IMPORT_ROWS = 10_000;

export const importAnnotationsInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  format: z.enum(['jsonl', 'csv']),
  /** The file's text. */
  content: z.string().max(MAX_IMPORT_TEXT),
  /** Check each annotation against the evaluation's schema (required fields not enforced). */
  validate: z.boolean().default(true),
  /**
   * A preview: every row is checked (its document found by id or filename, its annotation against the schema) and
   * answered as the import would answer it, and nothing is written.
   */
  dry_run: z.boolean().default(false),
});
export type ImportAnnotationsInput = z.input<typeof importAnnotationsInputSchema>;

export const importRowResultSchema = z.object({
  row: z.number().int(),
  document_id: z.string().nullable(),
  filename: z.string().nullable(),
  status: z.enum(['updated', 'refused']),
  issues: z.array(z.object({ path: z.string(), message: z.string() })),
});
export type ImportRowResult = z.infer<typeof importRowResultSchema>;

export const importAnnotationsResultSchema = z.object({
  /** `true` for a preview: `updated` counts the rows that would be written, and nothing was. */
  dry_run: z.boolean(),
  updated: z.number().int(),
  refused: z.number().int(),
  rows: z.array(importRowResultSchema),
});
export type ImportAnnotationsResult = z.infer<typeof importAnnotationsResultSchema>;
