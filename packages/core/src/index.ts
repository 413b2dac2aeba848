export * from './errors.js';
export * from './json/assert-json.js';
export * from './json/json-body-limits.js';
export * from './json/read-body.js';
export { LIMITS } from './limits.js';
export * from './json-schema/compile.js';
export * from './json-schema/annotation.js';
export * from './schemas/index.js';
export type * from './storage.js';
export { JOBS_SCOPE } from './storage.js';
export * from './extractor.js';
export { aesGcmCipher, generateMasterKey, parseMasterKey, type SecretCipher } from './secrets/cipher.js';
export { CUSTOM_MODEL_PREFIX, CUSTOM_PROVIDER, PROVIDER_INFO, PROVIDERS, isProvider, providerOfModel, type Provider, type ProviderInfo } from './secrets/providers.js';
export { NO_MASTER_KEY_MESSAGE, SECRETS_SCOPE, type SecretRecord } from './service/secrets.js';
export type * from './service/types.js';
export type { Docevals } from './service/docevals.js';
export * from './service/update-record.js';
export { invalidRequest, issuesOf, assertNoForbiddenKey } from './service/validate.js';
export * from './auth/index.js';
export * from './service/create-docevals.js';
export * from './operations/index.js';
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
export * from './telemetry/index.js';
