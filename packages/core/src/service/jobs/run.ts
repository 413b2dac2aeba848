import { JOBS_SCOPE } from '../../storage.js';
import type { ServiceContext } from '../context.js';
import { runDocuments, settleSaved } from '../iteration-steps.js';
import type { IterationRef } from './contract.js';
import { EventBatch, writeFinalEvent } from './events.js';
import { isActive, type JobContext } from './job-context.js';
import { leaseLive, releaseLease, renewLease, takeLease } from './leases.js';
import { failJob, finishJob, pendingDocuments } from './outcomes.js';
import { PredictionWrites } from './prediction-writes.js';

/** One job run whole by this process under its lease ({@link JobWork.run}), and the jobs left to resume. */

/** {@link JobWork.run}. */
export async function runIterationJob(ctx: ServiceContext, jobs: JobContext, ref: IterationRef, signal: AbortSignal): Promise<void> {
  const taken = await takeLease(ctx, jobs, ref);
  if (!taken) return;
  const { iteration } = taken;
  const job = iteration.job!;
  const controller = new AbortController();
  const stop = () => controller.abort(signal.reason);
  signal.addEventListener('abort', stop, { once: true });
  let renewing = Promise.resolve();
  const heartbeat = setInterval(() => {
    renewing = renewLease(ctx, jobs, ref, job.id).then(
      (ours) => void (ours || controller.abort('lost')),
      () => undefined, // a store hiccup: try again at the next beat; the lease outlives two missed beats
    );
  }, Math.max(1, Math.floor(jobs.leaseMs / 3)));
  heartbeat.unref?.();
  const events = new EventBatch(ctx, jobs, iteration.id);
  // Each batch of the group commit is settled against its documents with one read (not one read per prediction).
  const predictions = new PredictionWrites(ctx, (documents) => settleSaved(ctx, iteration, documents));
  try {
    const documents = await pendingDocuments(ctx, jobs, iteration, job, undefined, taken.fresh);
    const outcome = await runDocuments(ctx, iteration, documents, 'replace', {
      signal: controller.signal,
      save: (record, document) => predictions.save(record, document),
      onSaved: async (prediction) => events.add(prediction, job.id),
      jobId: job.id,
      slot: (fn) => jobs.slots.run(ref.organization_id, fn, controller.signal),
    });
    await events.flush();
    clearInterval(heartbeat);
    await renewing;
    if (controller.signal.aborted) {
      if (controller.signal.reason === 'closing') await releaseLease(ctx, jobs, ref, job.id);
      return;
    }
    await finishJob(ctx, jobs, ref, job, outcome);
  } catch (error) {
    clearInterval(heartbeat);
    await events.flush().catch(() => undefined);
    await renewing;
    if (controller.signal.aborted) {
      if (controller.signal.reason === 'closing') await releaseLease(ctx, jobs, ref, job.id).catch(() => undefined);
      return;
    }
    const waiter = jobs.waiting.get(job.id);
    if (waiter) waiter.error = error;
    await failJob(ctx, jobs, ref, job, error).catch(() => undefined);
    if (!waiter) throw error;
  } finally {
    clearInterval(heartbeat);
    signal.removeEventListener('abort', stop);
  }
}

function serves(ctx: ServiceContext, model: string): boolean {
  try {
    ctx.runner.assertServed(model);
    return true;
  } catch {
    return false;
  }
}

/**
 * {@link JobWork.resumable}: the active jobs of every organization whose lease is absent or expired. A job whose
 * iteration is gone or already over (a crash after its outcome was written) is settled and dropped from the list.
 */
export async function* resumableJobs(ctx: ServiceContext, jobs: JobContext): AsyncGenerator<IterationRef> {
  let after: string | undefined;
  for (;;) {
    const page = await ctx.storage.jobs.list(JOBS_SCOPE, { limit: 100, order: 'asc', ...(after ? { after } : {}) });
    if (!page) return;
    for (const job of page.items) {
      const found = await ctx.storage.iterations.get(job.iteration_organization_id, job.iteration_id);
      const iteration = found?.value;
      if (!iteration || iteration.job?.id !== job.job_id) {
        await ctx.storage.jobs.delete(JOBS_SCOPE, job.id);
        continue;
      }
      if (!isActive(iteration.status)) {
        await writeFinalEvent(ctx, jobs, iteration, iteration.job);
        continue;
      }
      if (leaseLive(iteration) && iteration.lease!.owner !== jobs.owner) continue;
      // A server that does not serve the model leaves the job to one that does (several apps on one store).
      if (!ctx.runner.servedModels().length || !serves(ctx, iteration.inference_settings.model)) continue;
      yield { organization_id: iteration.organization_id, evaluation_id: iteration.evaluation_id, iteration_id: iteration.id };
    }
    if (!page.has_more || page.items.length === 0) return;
    after = page.items[page.items.length - 1]!.id;
  }
}
