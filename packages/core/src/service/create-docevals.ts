import { DocevalsError } from '../errors.js';
import { JOBS_SCOPE } from '../storage.js';
import { createExtractionRunner, DEFAULT_EXTRACTION_OPTIONS, listModels, localRulesExtractor } from '../extraction/index.js';
import { analysisOperations } from './analyses.js';
import type { ServiceContext } from './context.js';
import {
  DEFAULT_JOB_OPTIONS,
  describeJob,
  finishQueuedJob,
  inProcessJobRunner,
  LocalSignals,
  planQueuedJob,
  resumableJobs,
  runIterationJob,
  runQueuedDocument,
  runQueuedDocuments,
  type JobRunner,
  type JobWork,
} from './jobs.js';
import { nanoid } from 'nanoid';
import { documentOperations } from './documents.js';
import { evaluationOperations } from './evaluations.js';
import { iterationOperations } from './iterations.js';
import { processorOperations } from './processors.js';
import { SECRETS_SCOPE, secretOperations } from './secrets.js';
import type { Docevals, DocevalsLimits, DocevalsOptions } from './types.js';

/** docs/spec/service.md, Limits. */
export const DEFAULT_LIMITS: DocevalsLimits = Object.freeze({
  maxDocumentsPerEvaluation: 10_000,
  maxIterationsPerEvaluation: 1_000,
  maxJsonSchemaBytes: 1_048_576,
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyOperation = (organizationId: string, input?: any) => Promise<unknown> | AsyncIterable<unknown>;

/** Every operation checks the caller's organization first: the transports pass what `authenticate` returned. */
function scoped<T extends { [K in keyof T]: AnyOperation }>(operations: T): T {
  const out: Record<string, AnyOperation> = {};
  for (const [name, operation] of Object.entries(operations) as Array<[string, AnyOperation]>) {
    out[name] = (organizationId: string, input?: unknown) => {
      if (typeof organizationId !== 'string' || organizationId.length === 0 || organizationId === JOBS_SCOPE || organizationId === SECRETS_SCOPE) {
        const error = new DocevalsError('unauthorized', 'An organization is required: authenticate first.');
        // A stream operation answers as a stream does: its iteration fails.
        if (name === 'events') return (async function* () { throw error; })();
        return Promise.reject(error);
      }
      return operation(organizationId, input);
    };
  }
  return out as T;
}

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
  const extraction = { ...DEFAULT_EXTRACTION_OPTIONS, ...options.extraction };
  const extractors = options.extractors ?? [localRulesExtractor()];
  const now = options.now ?? (() => new Date());
  const jobOptions = { ...DEFAULT_JOB_OPTIONS, ...options.jobs };
  const onJobError = options.jobs?.onError ?? ((error: unknown) => console.error('[docevals/jobs]', error));
  const ctx: ServiceContext = {
    storage: options.storage,
    runner: createExtractionRunner({ extractors, ...extraction }),
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    concurrency: extraction.concurrency,
    now: () => now().toISOString(),
    jobs: { owner: `runner_${nanoid()}`, leaseMs: jobOptions.leaseMs, signals: new LocalSignals(), waiting: new Map() },
    jobRunner: undefined as unknown as JobRunner,
    secrets: secretOperations({ storage: options.storage, cipher: options.secrets?.cipher ?? null, extractors, now: () => now().toISOString() }),
  };
  const secrets = ctx.secrets;
  const analyses = scoped(analysisOperations(ctx));
  const work: JobWork = {
    run: (ref, signal) => runIterationJob(ctx, ctx.jobs, ref, signal),
    resumable: () => resumableJobs(ctx, ctx.jobs),
    leaseMs: jobOptions.leaseMs,
    describe: (ref) => describeJob(ctx, ref),
    plan: (ref) => planQueuedJob(ctx, ctx.jobs, ref),
    runDocument: (ref, jobId, documentId, signal) => runQueuedDocument(ctx, ctx.jobs, ref, jobId, documentId, signal),
    runDocuments: (ref, jobId, documentIds, signal, hooks) => runQueuedDocuments(ctx, ctx.jobs, ref, jobId, documentIds, signal, hooks),
    finish: (ref, jobId) => finishQueuedJob(ctx, ctx.jobs, ref, jobId),
  };
  ctx.jobRunner = jobOptions.runner
    ? jobOptions.runner(work)
    : inProcessJobRunner(work, { maxRunningIterations: jobOptions.maxRunningIterations, onError: onJobError });
  if (jobOptions.resume) void ctx.jobRunner.start().catch(onJobError);
  return {
    evals: {
      ...(scoped(evaluationOperations(ctx)) as unknown as Omit<Docevals['evals'], 'compare' | 'leaderboard' | 'documents' | 'iterations'>),
      compare: (organizationId, input) => analyses.compare(organizationId, input),
      leaderboard: (organizationId, input) => analyses.leaderboard(organizationId, input),
      matrix: (organizationId, input) => analyses.matrix(organizationId, input),
      // The operations return the union of their views; the interface's overloads narrow it by the input.
      documents: {
        ...(scoped(documentOperations(ctx)) as unknown as Omit<Docevals['evals']['documents'], 'import'>),
        import: (organizationId, input) => analyses.importAnnotations(organizationId, input),
      },
      iterations: {
        ...(scoped(iterationOperations(ctx)) as unknown as Omit<Docevals['evals']['iterations'], 'fields' | 'export'>),
        fields: (organizationId, input) => analyses.fields(organizationId, input),
        export: (organizationId, input) => analyses.export(organizationId, input),
      },
    },
    processors: scoped(processorOperations(ctx)),
    secrets: {
      externalApiKeys: scoped(secrets.externalApiKeys),
      customEndpoint: scoped(secrets.customEndpoint),
      check: () => secrets.check(),
      reencrypt: () => secrets.reencrypt(),
      configured: options.secrets?.cipher != null,
    },
    models: () => ctx.runner.servedModels(),
    listModels: async (organizationId?: string) =>
      organizationId === undefined ? listModels(extractors) : scoped({ m: (org: string) => secrets.modelsFor(org) }).m(organizationId),
    jobStats: async () => (ctx.jobRunner.stats ? ctx.jobRunner.stats() : null),
    close: async () => {
      await ctx.jobRunner.close().catch(onJobError);
      await options.storage.close();
    },
  };
}
