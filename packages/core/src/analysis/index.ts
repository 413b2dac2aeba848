export type { AnalysisDocument, AnalysisPrediction, AnalysisStatus } from './types.js';
export { fieldOf, splitPath, valueAt, isFilled } from './field-paths.js';
export { CALIBRATION_BINS, CalibrationBuilder, type Calibration } from './calibration.js';
export { BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, pairedBootstrap, type PairedDelta } from './paired-bootstrap.js';
export {
  documentFields,
  failedDocumentFields,
  FieldSummaryBuilder,
  schemaLeafFields,
  type DocumentFieldScore,
  type FieldOutcome,
  type FieldStats,
  type FieldSummary,
} from './field-summary.js';
export {
  DEFAULT_COMPARE_THRESHOLD,
  IterationComparer,
  type DocumentDelta,
  type ExcludedDocument,
  type FieldDelta,
  type IterationComparison,
  type MeanDelta,
} from './compare.js';
export {
  leaderboard,
  type Leaderboard,
  type LeaderboardIteration,
  type LeaderboardRow,
  type LeaderboardSortKey,
} from './leaderboard.js';
export {
  csvHeader,
  csvLines,
  EXPORT_COLUMNS,
  exportRows,
  jsonLines,
  neutralizeCell,
  type CsvOptions,
  type ExportRow,
} from './export-rows.js';
export {
  parseAnnotations,
  parseAnnotationsPaced,
  type AnnotationFormat,
  type AnnotationRow,
  type PacedParseOptions,
} from './import-annotations.js';
