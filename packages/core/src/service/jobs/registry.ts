import { DocevalsError } from '../../errors.js';
import { JOBS_SCOPE, type IterationJob, type IterationRecord, type JobRecord } from '../../storage.js';
import type { ServiceContext } from '../context.js';
import { retryCompareAndSet } from '../update-record.js';
import { jobRecordId } from './job-context.js';

/*
 * The `jobs` collection: the active jobs of every organization, in the org-independent JOBS_SCOPE, so a runner finds
 * them after a restart (run.ts, resumableJobs).
 */

/**
 * Lists the job in the org-independent `jobs` collection, so a runner finds it after a restart. A new record takes
 * one of the organization's `jobs.maxPerOrganization` places in the same atomic step of the store
 * (`storage.jobs.insertWithinCap`): past the cap, 429 `rate_limited` and nothing written, however many
 * requests (on however many servers) race for the last place. A record the iteration already has keeps its place.
 */
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
  await retryCompareAndSet(record.id, async () => {
    const existing = await ctx.storage.jobs.get(JOBS_SCOPE, record.id);
    if (existing) return (await ctx.storage.jobs.replace(record, existing.version)) ? true : undefined;
    try {
      if (await ctx.storage.jobs.insertWithinCap(record, ctx.jobs.maxPerOrganization)) return true;
    } catch (error) {
      if (error instanceof DocevalsError && error.code === 'conflict') return undefined; // inserted meanwhile: replace it
      throw error;
    }
    throw capReached(ctx);
  });
}

/** Drops the iteration's job record whatever its job: the iteration is gone (deleted). */
export async function unregisterIteration(ctx: ServiceContext, organizationId: string, iterationId: string): Promise<void> {
  await ctx.storage.jobs.delete(JOBS_SCOPE, jobRecordId(organizationId, iterationId));
}

export async function unregisterJob(ctx: ServiceContext, organizationId: string, iterationId: string, jobId: string): Promise<void> {
  const found = await ctx.storage.jobs.get(JOBS_SCOPE, jobRecordId(organizationId, iterationId));
  if (found && found.value.job_id === jobId) await ctx.storage.jobs.delete(JOBS_SCOPE, found.value.id, found.version);
}

/** How long a refused organization is told to wait: about one short job's time. */
export const CAP_RETRY_AFTER_SECONDS = 5;

/**
 * Refuses early (429 `rate_limited`) when the organization already has `jobs.maxPerOrganization` queued or running
 * iterations, before anything is written. Only a shortcut for the common case: requests racing each other may all
 * pass it, and {@link registerJob} is what holds the cap.
 */
export async function assertBelowCap(ctx: ServiceContext, organizationId: string): Promise<void> {
  const cap = ctx.jobs.maxPerOrganization;
  const page = await ctx.storage.jobs.list(JOBS_SCOPE, { limit: cap, order: 'asc', where: { iteration_organization_id: organizationId } });
  if ((page?.items.length ?? 0) >= cap) throw capReached(ctx);
}

function capReached(ctx: ServiceContext): DocevalsError {
  const cap = ctx.jobs.maxPerOrganization;
  return new DocevalsError(
    'rate_limited',
    `This organization already has ${cap} queued or running iterations; retry once one has finished (or cancel one).`,
    { retry_after: CAP_RETRY_AFTER_SECONDS },
  );
}
