export { backoffDelay } from './backoff.js';
export type { ExtractionCallEvent } from './call-with-retries.js';
export {
  createExtractionRunner,
  DEFAULT_EXTRACTION_OPTIONS,
  type DocumentPrediction,
  type ExtractAllOptions,
  type ExtractionRunner,
  type ExtractionRunnerOptions,
} from './extraction-runner.js';
export { describeModelPattern, findExtractor, modelMatches } from './model-routing.js';
export { listModels } from './model-list.js';
export { reconcile, type Reconciled } from './reconcile.js';
export { htmlToText } from './local-rules/text-layout.js';
export { LOCAL_RULES_MODEL, localRulesExtractor, type LocalRulesExtractorOptions } from './local-rules/local-rules-extractor.js';
