import type { ExtractionRunner } from '../extraction/index.js';
import type { Storage } from '../storage.js';
import type { JobRunner } from './jobs/contract.js';
import type { JobContext } from './jobs/job-context.js';
import type { OrganizationGate } from './organization-gate.js';
import type { SecretOperations } from './secrets.js';

/** Limits a host can change (docs/spec/service.md, Limits). */
export interface DocevalsLimits {
  /** @default 10_000 */
  maxDocumentsPerEvaluation: number;
  /** @default 1_000 */
  maxIterationsPerEvaluation: number;
  /** Serialized size of a json_schema. @default 1_048_576 (1 MiB) */
  maxJsonSchemaBytes: number;
  /**
   * Event streams one organization may hold open at once through this service's transports, REST's
   * `GET .../events` and tRPC's `iterations.events` counted together (the service's own `evals.iterations.events`
   * called in process is not counted); one more is a 429 `rate_limited`. `0`: no cap. @default 20
   */
  maxEventStreamsPerOrganization: number;
}

/** What every step of the service works with (the job steps included: it holds no runner). */
export interface ServiceContext {
  storage: Storage;
  runner: ExtractionRunner;
  limits: DocevalsLimits;
  /** Extractor calls in flight per iteration. */
  concurrency: number;
  /** ISO 8601 UTC with milliseconds. */
  now(): string;
  jobs: JobContext;
  /** Heavy reads (a whole evaluation, an export) in flight per organization (`LIMITS.maxHeavyReadsPerOrganization`). */
  heavyReads: OrganizationGate;
  /** Organization secrets: the key an organization's extraction runs with (`credentialsFor`). */
  secrets: SecretOperations;
}

/**
 * What the operations that start or stop jobs work with: the service context and the runner built over its job
 * steps (so the context comes first, the runner second, and this last: each built whole, once).
 */
export interface OperationContext extends ServiceContext {
  jobRunner: JobRunner;
}
