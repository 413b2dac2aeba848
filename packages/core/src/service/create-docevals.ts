import { nanoid } from 'nanoid';
import { createExtractionRunner, DEFAULT_EXTRACTION_OPTIONS, localRulesExtractor } from '../extraction/index.js';
import { LIMITS } from '../limits.js';
import type { OperationContext, ServiceContext } from './context.js';
import { assembleDocevals, type Docevals } from './docevals.js';
import { createJobWork, DEFAULT_JOB_OPTIONS, FairSlots, inProcessJobRunner, LocalSignals, type JobRunner, type JobWork } from './jobs/index.js';
import { OrganizationGate } from './organization-gate.js';
import { secretOperations } from './secrets.js';
import { DEFAULT_MAX_EVENT_STREAMS_PER_ORGANIZATION, ownEventStreamSlots, StreamSlots } from './stream-slots.js';
import { tracedStorage } from './traced-storage.js';
import type { DocevalsLimits, DocevalsOptions } from './types.js';

/** docs/spec/service.md, Limits. */
export const DEFAULT_LIMITS: DocevalsLimits = Object.freeze({
  maxDocumentsPerEvaluation: 10_000,
  maxIterationsPerEvaluation: 1_000,
  maxJsonSchemaBytes: 1_048_576,
  maxEventStreamsPerOrganization: DEFAULT_MAX_EVENT_STREAMS_PER_ORGANIZATION,
});

/**
 * Creates the docevals service over a storage and the extractors that serve models.
 *
 * @example
 * import { createDocevals } from '@docevals/core';
 * import { memoryStorage } from '@docevals/adapters/memory';
 *
 * const docevals = createDocevals({ storage: memoryStorage() });
 * const evaluation = await docevals.evals.create('org_1', {
 *   name: 'Invoices',
 *   json_schema: { type: 'object', properties: { total: { type: 'number' } } },
 *   documents: [{ mime_data: { filename: 'a.txt', url: 'data:text/plain;base64,VG90YWw6IDQy' }, annotation: { total: 42 } }],
 * });
 * const iteration = await docevals.evals.iterations.create('org_1', {
 *   evaluation_id: evaluation.id,
 *   inference_settings: { model: 'local-rules' },
 * });
 * console.log(iteration.metric_results.mean_similarity); // 1
 */
export function createDocevals(options: DocevalsOptions): Docevals {
  return createDocevalsWithJobs(options).docevals;
}

/**
 * {@link createDocevals}, answering also the job steps its runner was given: for a host that runs jobs itself
 * beside the service (a queue's worker process calls `work.plan`, `work.runDocuments`, `work.finish`).
 *
 * @example
 * const { docevals, work } = createDocevalsWithJobs({ storage, extractors, jobs: { resume: false, runner: (w) => myQueue(w) } });
 */
export function createDocevalsWithJobs(options: DocevalsOptions): { docevals: Docevals; work: JobWork } {
  const extraction = { ...DEFAULT_EXTRACTION_OPTIONS, ...options.extraction };
  const extractors = options.extractors ?? [localRulesExtractor()];
  const now = options.now ?? (() => new Date());
  const jobOptions = { ...DEFAULT_JOB_OPTIONS, ...options.jobs };
  const onJobError = options.jobs?.onError ?? ((error: unknown) => console.error('[docevals/jobs]', error));
  // Built bottom up, each whole: the context, the job steps over it, the runner over them, then the operations.
  const storage = tracedStorage(options.storage);
  const ctx: ServiceContext = {
    storage,
    runner: createExtractionRunner({ extractors, ...extraction }),
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    concurrency: extraction.concurrency,
    now: () => now().toISOString(),
    jobs: {
      owner: `runner_${nanoid()}`,
      leaseMs: jobOptions.leaseMs,
      maxPerOrganization: Math.max(1, Math.floor(jobOptions.maxIterationsPerOrganization)),
      slots: new FairSlots(Math.max(1, Math.floor(jobOptions.maxRunningIterations)) * extraction.concurrency),
      signals: new LocalSignals(),
      waiting: new Map(),
    },
    heavyReads: new OrganizationGate(LIMITS.maxHeavyReadsPerOrganization),
    secrets: secretOperations({ storage, cipher: options.secrets?.cipher ?? null, extractors, now: () => now().toISOString() }),
  };
  const work = createJobWork(ctx);
  const jobRunner: JobRunner = jobOptions.runner
    ? jobOptions.runner(work)
    : inProcessJobRunner(work, { maxRunningIterations: jobOptions.maxRunningIterations, onError: onJobError });
  const operations: OperationContext = { ...ctx, jobRunner };
  if (jobOptions.resume) void jobRunner.start().catch(onJobError);
  const docevals = assembleDocevals(options, operations, extractors, onJobError);
  // The one count of open event streams that REST and tRPC serving this service share (eventStreamSlots).
  const streams = new StreamSlots(ctx.limits.maxEventStreamsPerOrganization);
  if (options.limits?.maxEventStreamsPerOrganization !== undefined) streams.configure(streams.max, 'createDocevals({ limits })');
  ownEventStreamSlots(docevals, streams);
  return { docevals, work };
}
