import { DocevalsError } from '../errors.js';
import { JOBS_SCOPE } from '../storage.js';
import { createExtractionRunner, DEFAULT_EXTRACTION_OPTIONS, listModels, localRulesExtractor } from '../extraction/index.js';
import { analysisOperations } from './analyses.js';
import type { OperationContext, ServiceContext } from './context.js';
import { createJobWork, DEFAULT_JOB_OPTIONS, FairSlots, inProcessJobRunner, LocalSignals, type JobRunner, type JobWork } from './jobs/index.js';
import { nanoid } from 'nanoid';
import { documentOperations } from './documents.js';
import { evaluationOperations } from './evaluations.js';
import { iterationOperations } from './iterations.js';
import { processorOperations } from './processors.js';
import { SECRETS_SCOPE, secretOperations } from './secrets.js';
import type { Docevals, DocevalsLimits, DocevalsOptions } from './types.js';
import { ATTR, inSpan, inStreamSpan, SPAN } from '../telemetry/index.js';
import { tracedStorage } from './traced-storage.js';
import { OrganizationGate } from './organization-gate.js';
import { LIMITS } from '../limits.js';

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
  const ctx: ServiceContext = {
    storage: tracedStorage(options.storage),
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
    secrets: secretOperations({ storage: options.storage, cipher: options.secrets?.cipher ?? null, extractors, now: () => now().toISOString() }),
  };
  const work = createJobWork(ctx);
  const jobRunner: JobRunner = jobOptions.runner
    ? jobOptions.runner(work)
    : inProcessJobRunner(work, { maxRunningIterations: jobOptions.maxRunningIterations, onError: onJobError });
  const operations: OperationContext = { ...ctx, jobRunner };
  if (jobOptions.resume) void jobRunner.start().catch(onJobError);
  return { docevals: assemble(options, ctx, operations, extractors, onJobError), work };
}

/** The service's public shape over its contexts. */
function assemble(
  options: DocevalsOptions,
  ctx: ServiceContext,
  operations: OperationContext,
  extractors: NonNullable<DocevalsOptions['extractors']>,
  onJobError: (error: unknown) => void,
): Docevals {
  const analyses = scoped(analysisOperations(ctx));
  const jobRunner = operations.jobRunner;
  const docevals: Docevals = {
    evals: {
      ...(scoped(evaluationOperations(operations)) as unknown as Omit<Docevals['evals'], 'compare' | 'leaderboard' | 'documents' | 'iterations'>),
      compare: (organizationId, input) => analyses.compare(organizationId, input),
      leaderboard: (organizationId, input) => analyses.leaderboard(organizationId, input),
      matrix: (organizationId, input) => analyses.matrix(organizationId, input),
      // The operations return the union of their views; the interface's overloads narrow it by the input.
      documents: {
        ...(scoped(documentOperations(ctx)) as unknown as Omit<Docevals['evals']['documents'], 'import'>),
        import: (organizationId, input) => analyses.importAnnotations(organizationId, input),
      },
      iterations: {
        ...(scoped(iterationOperations(operations)) as unknown as Omit<Docevals['evals']['iterations'], 'fields' | 'export'>),
        fields: (organizationId, input) => analyses.fields(organizationId, input),
        export: (organizationId, input) => analyses.export(organizationId, input),
      },
    },
    processors: scoped(processorOperations(ctx)),
    secrets: {
      externalApiKeys: scoped(ctx.secrets.externalApiKeys),
      customEndpoint: scoped(ctx.secrets.customEndpoint),
      check: () => ctx.secrets.check(),
      reencrypt: () => ctx.secrets.reencrypt(),
      configured: options.secrets?.cipher != null,
    },
    models: () => ctx.runner.servedModels(),
    listModels: async (organizationId?: string) =>
      organizationId === undefined ? listModels(extractors) : scoped({ m: (org: string) => ctx.secrets.modelsFor(org) }).m(organizationId),
    jobStats: async () => (jobRunner.stats ? jobRunner.stats() : null),
    close: async () => {
      await jobRunner.close().catch(onJobError);
      await options.storage.close();
    },
  };
  traceOperations(docevals.evals, 'evals.');
  traceOperations(docevals.processors, 'processors.');
  return docevals;
}

/** Operations that answer a stream (an iterable read over time) rather than a promise. */
const STREAMS = new Set(['evals.iterations.events']);

/**
 * Each operation of a group (and of its sub-groups) runs in a span named by the operation (`docevals
 * evals.iterations.create`: the name of the operations table and of the tRPC procedure), whatever the transport. The
 * event stream's span lasts as long as its reader reads (an SSE stream: from its first event to its end or the
 * client going away).
 */
function traceOperations(group: object, prefix: string): void {
  const target = group as Record<string, unknown>;
  for (const [name, value] of Object.entries(target)) {
    const path = `${prefix}${name}`;
    if (typeof value === 'object' && value !== null) traceOperations(value, `${path}.`);
    if (typeof value !== 'function') continue;
    const attributes = (organizationId: string) => ({ attributes: { [ATTR.operation]: path, [ATTR.organization]: String(organizationId) } });
    if (STREAMS.has(path)) {
      const stream = value as (organizationId: string, input?: unknown) => AsyncIterable<unknown>;
      target[name] = (organizationId: string, input?: unknown) =>
        inStreamSpan(SPAN.operation(path), attributes(organizationId), () => stream(organizationId, input));
      continue;
    }
    const operation = value as (organizationId: string, input?: unknown) => Promise<unknown>;
    target[name] = (organizationId: string, input?: unknown) => inSpan(SPAN.operation(path), attributes(organizationId), () => operation(organizationId, input));
  }
}
