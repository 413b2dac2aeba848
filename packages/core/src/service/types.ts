import type { ExtractionOptions } from '../extraction/extraction-options.js';
import type { Extractor } from '../extractor.js';
import type { SecretCipher } from '../secrets/cipher.js';
import type { CreateEvaluationInput } from '../schemas/evaluations.js';
import type { Storage } from '../storage.js';
import type { DocevalsLimits } from './context.js';
import type { JobOptions } from './jobs/contract.js';

export type { DocevalsLimits };

export type { ExtractionOptions };

export interface DocevalsOptions {
  /** Where evaluations, iterations, processors and files live. */
  storage: Storage;
  /**
   * The extractors that serve models. A model no extractor serves is a 422 listing the served models.
   * @default [localRulesExtractor()] — the offline `local-rules` model
   */
  extractors?: Extractor[];
  limits?: Partial<DocevalsLimits>;
  extraction?: Partial<ExtractionOptions>;
  /**
   * How iterations run as jobs (docs/spec/jobs.md): iterations running at once in this process, the lease, resume
   * of unfinished jobs on start, another runner (a queue).
   */
  jobs?: Partial<JobOptions>;
  /** The clock, for tests. @default () => new Date() */
  now?: () => Date;
  /**
   * Organization secrets (docs/secrets.md): the cipher that seals each organization's provider keys at rest
   * (`aesGcmCipher([masterKey, previousKey?])`). Without one, the secrets operations answer `not_configured` (501)
   * and nothing is stored.
   */
  secrets?: { cipher?: SecretCipher | null };
  /**
   * The sample evaluation `evals.loadSample` creates for the caller's organization (the standalone server's: generated
   * invoices, receipts and forms). Without one, `evals.loadSample` answers `not_configured` (501) and stores nothing.
   */
  sample?: () => SampleEvaluation | Promise<SampleEvaluation>;
}

/** A sample evaluation: `evals.create`'s input, and the labels its imported iterations get (in their order). */
export interface SampleEvaluation {
  evaluation: CreateEvaluationInput;
  labels?: Array<{ name?: string | null; description?: string | null; tags?: string[] }>;
}
