import type { ExtractionRunner } from '../extraction/index.js';
import type { Storage } from '../storage.js';
import type { JobContext, JobRunner } from './jobs.js';
import type { SecretOperations } from './secrets.js';
import type { DocevalsLimits } from './types.js';

/** What every operation of the service works with. */
export interface ServiceContext {
  storage: Storage;
  runner: ExtractionRunner;
  limits: DocevalsLimits;
  /** Extractor calls in flight per iteration. */
  concurrency: number;
  /** ISO 8601 UTC with milliseconds. */
  now(): string;
  jobs: JobContext;
  /** Runs iterations' jobs; set right after the context is built. */
  jobRunner: JobRunner;
  /** Organization secrets: the key an organization's extraction runs with (`credentialsFor`). */
  secrets: SecretOperations;
}
