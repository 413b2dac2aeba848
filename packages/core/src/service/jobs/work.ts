import type { ServiceContext } from '../context.js';
import type { JobWork } from './contract.js';
import { describeJob, finishQueuedJob, planQueuedJob, runQueuedDocument, runQueuedDocuments } from './queued.js';
import { resumableJobs, runIterationJob } from './run.js';

/** The job steps over one service context: what the service gives its runner (in-process or a queue's). */
export function createJobWork(ctx: ServiceContext): JobWork {
  const jobs = ctx.jobs;
  return {
    run: (ref, signal) => runIterationJob(ctx, jobs, ref, signal),
    resumable: () => resumableJobs(ctx, jobs),
    leaseMs: jobs.leaseMs,
    describe: (ref) => describeJob(ctx, ref),
    plan: (ref) => planQueuedJob(ctx, jobs, ref),
    runDocument: (ref, jobId, documentId, signal) => runQueuedDocument(ctx, jobs, ref, jobId, documentId, signal),
    runDocuments: (ref, jobId, documentIds, signal, hooks) => runQueuedDocuments(ctx, jobs, ref, jobId, documentIds, signal, hooks),
    finish: (ref, jobId) => finishQueuedJob(ctx, jobs, ref, jobId),
  };
}
