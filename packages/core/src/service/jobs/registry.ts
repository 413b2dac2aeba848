import { DocevalsError } from '../../errors.js';
import { JOBS_SCOPE, type IterationJob, type IterationRecord, type JobRecord } from '../../storage.js';
import type { ServiceContext } from '../context.js';
import { jobRecordId } from './job-context.js';

/*
 * The `jobs` collection: the active jobs of every organization, in the org-independent JOBS_SCOPE, so a runner finds
 * them after a restart (run.ts, resumableJobs).
 */

/** Lists the job in the org-independent `jobs` collection, so a runner finds it after a restart. */
export async function registerJob(ctx: ServiceContext, iteration: IterationRecord, job: IterationJob): Promise<void> {
  const now = ctx.now();
  const record: JobRecord = {
    id: jobRecordId(iteration.organization_id, iteration.id),
    organization_id: JOBS_SCOPE,
    iteration_organization_id: iteration.organization_id,
    evaluation_id: iteration.evaluation_id,
    iteration_id: iteration.id,
    job_id: job.id,
    created_at: now,
    updated_at: now,
  };
  const existing = await ctx.storage.jobs.get(JOBS_SCOPE, record.id);
  if (existing) {
    if (!(await ctx.storage.jobs.replace(record, existing.version))) throw new DocevalsError('conflict', 'The iteration changed meanwhile; try again.');
    return;
  }
  await ctx.storage.jobs.insert(record);
}

export async function unregisterJob(ctx: ServiceContext, organizationId: string, iterationId: string, jobId: string): Promise<void> {
  const found = await ctx.storage.jobs.get(JOBS_SCOPE, jobRecordId(organizationId, iterationId));
  if (found && found.value.job_id === jobId) await ctx.storage.jobs.delete(JOBS_SCOPE, found.value.id, found.version);
}
