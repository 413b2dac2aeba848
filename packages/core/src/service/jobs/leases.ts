import type { IterationRecord } from '../../storage.js';
import type { ServiceContext } from '../context.js';
import { updateRecord } from '../update-record.js';
import { QUEUE_LEASE_OWNER, type IterationRef } from './contract.js';
import { isActive, type JobContext } from './job-context.js';

/*
 * The iteration's lease: who runs its job. An in-process runner holds it for `leaseMs` and renews it every third of
 * that; a queue holds it with {@link QUEUE_LEASE_OWNER} and no expiry (the queue's own locks protect each document).
 */

/** A queue's lease does not expire: in-process runners sharing the store never take the job over. */
const QUEUE_LEASE_EXPIRES_AT = '9999-12-31T23:59:59.999Z';

export const leaseUntil = (ms: number) => new Date(Date.now() + ms).toISOString();
export const leaseLive = (iteration: IterationRecord, now = Date.now()) =>
  iteration.lease !== null && Date.parse(iteration.lease.expires_at) > now;

/** Takes the lease by compare-and-set when the job is active and the lease is absent, expired or ours. */
export async function takeLease(
  ctx: ServiceContext,
  jobs: JobContext,
  ref: IterationRef,
): Promise<{ iteration: IterationRecord; fresh: boolean } | null> {
  const taken = await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (!current.job || !isActive(current.status)) return { skip: true, result: null };
    if (leaseLive(current) && current.lease!.owner !== jobs.owner) return { skip: true, result: null };
    const now = ctx.now();
    const next: IterationRecord = {
      ...current,
      status: 'running',
      started_at: current.status === 'queued' || !current.started_at ? now : current.started_at,
      lease: { owner: jobs.owner, expires_at: leaseUntil(jobs.leaseMs) },
      updated_at: current.status === 'queued' ? now : current.updated_at,
    };
    // `queued`: no runner has taken this job before, so it has written nothing yet.
    return { write: next, result: { iteration: next, fresh: current.status === 'queued' } };
  });
  return taken?.result ?? null;
}

/** Renews the lease (compare-and-set); false when the job is no longer ours (cancelled, taken over, deleted). */
export async function renewLease(ctx: ServiceContext, jobs: JobContext, ref: IterationRef, jobId: string): Promise<boolean> {
  const renewed = await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (current.status !== 'running' || current.job?.id !== jobId || current.lease?.owner !== jobs.owner) {
      return { skip: true, result: false };
    }
    return { write: { ...current, lease: { owner: jobs.owner, expires_at: leaseUntil(jobs.leaseMs) } }, result: true };
  });
  return renewed?.result ?? false;
}

/** Gives the lease back (a runner closing): another runner may resume the job at once. */
export async function releaseLease(ctx: ServiceContext, jobs: JobContext, ref: IterationRef, jobId: string): Promise<void> {
  await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (current.job?.id !== jobId || current.lease?.owner !== jobs.owner) return { skip: true, result: undefined };
    return { write: { ...current, lease: null }, result: undefined };
  });
}

/**
 * Takes the job for a queue (compare-and-set: `running`, lease held by the queue, no expiry). The record when the
 * queue holds it (now or already), `fresh` when this call took it from `queued` (nothing of the job is written yet);
 * null when the job is over or a live in-process lease holds it.
 */
export async function takeQueueLease(ctx: ServiceContext, ref: IterationRef): Promise<{ iteration: IterationRecord; fresh: boolean } | null> {
  const taken = await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (!current.job || !isActive(current.status)) return { skip: true, result: null };
    if (current.lease?.owner === QUEUE_LEASE_OWNER && current.status === 'running') return { skip: true, result: { iteration: current, fresh: false } };
    if (leaseLive(current)) return { skip: true, result: null };
    const now = ctx.now();
    const next: IterationRecord = {
      ...current,
      status: 'running',
      started_at: current.status === 'queued' || !current.started_at ? now : current.started_at,
      lease: { owner: QUEUE_LEASE_OWNER, expires_at: QUEUE_LEASE_EXPIRES_AT },
      updated_at: now,
    };
    // Taken from `queued`: no runner has written a prediction of this job yet (a plan run again finds it running).
    return { write: next, result: { iteration: next, fresh: current.status === 'queued' } };
  });
  return taken?.result ?? null;
}
