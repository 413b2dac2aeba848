/**
 * `@docevals/core/internal`: what the docevals packages share and a host does not need: the request-body readers and
 * JSON limits of the transports, the operations table REST and tRPC are derived from, JSON-schema compilation, the
 * storage scopes and record-update helpers of the adapters, the secrets' provider table and the telemetry names.
 * Everything of `@docevals/core` is here too. Not part of the documented API: it may change in any release.
 */
export * from './index.js';
export * from './json/assert-json.js';
export * from './json/json-body-limits.js';
export * from './json/read-body.js';
export * from './json-schema/compile.js';
export * from './json-schema/annotation.js';
export { JOBS_SCOPE } from './storage.js';
export { CUSTOM_MODEL_PREFIX, CUSTOM_PROVIDER, PROVIDER_INFO, PROVIDERS, isProvider, providerOfModel, type Provider, type ProviderInfo } from './secrets/providers.js';
export { NO_MASTER_KEY_MESSAGE, SECRETS_SCOPE, type SecretRecord } from './service/secrets.js';
export * from './service/update-record.js';
export { DEFAULT_MAX_EVENT_STREAMS_PER_ORGANIZATION, eventStreamSlots, StreamSlots } from './service/stream-slots.js';
export { invalidRequest, issuesOf, assertNoForbiddenKey } from './service/validate.js';
export * from './operations/index.js';
export * from './telemetry/index.js';
export { yieldToEventLoop } from './time-slice.js';
export { mulberry32 } from './analysis/paired-bootstrap.js';
