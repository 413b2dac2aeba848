/**
 * `@docevals/core`: the service (`createDocevals`), its options and resources (types and zod schemas), typed errors,
 * authentication helpers, the `Storage` and `Extractor` contracts, the job runner contract, the offline `local-rules`
 * extractor, metrics, identifiers and analyses. What the other docevals packages share beyond this (request-body
 * readers, the operations table, telemetry names, storage record helpers) is in `@docevals/core/internal`.
 *
 * @packageDocumentation
 */
export * from './errors.js';
export type { JsonObject, JsonPrimitive, JsonValue } from './json/assert-json.js';
export { LIMITS } from './limits.js';
export * from './schemas/index.js';
export type * from './storage.js';
export * from './extractor.js';
export { aesGcmCipher, generateMasterKey, parseMasterKey, type SecretCipher } from './secrets/cipher.js';
export type * from './service/types.js';
export type { Docevals } from './service/docevals.js';
export * from './auth/index.js';
export * from './service/create-docevals.js';
export * from './extraction/index.js';
export * from './metrics/index.js';
export * from './identifiers/index.js';
export * from './analysis/index.js';
export type { ExportStream } from './service/analyses.js';
export type { DocumentContent } from './service/documents.js';
export {
  DEFAULT_JOB_OPTIONS,
  inProcessJobRunner,
  QUEUE_LEASE_OWNER,
  type DocumentOutcome,
  type QueuedDocumentHooks,
  type IterationRef,
  type JobPlan,
  type JobRunnerStats,
  type JobOptions,
  type JobRunner,
  type JobWork,
} from './service/jobs/index.js';
