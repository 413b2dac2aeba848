import { type IterationRef, type JobRunner, type JobRunnerStats, type JobWork } from '@docevals/core';
import { traceCarrier } from '@docevals/core/internal';
import { ATTEMPTS, Fleet, planJobId, PRIORITY_LIMIT, type JobData, type QueueOptions } from './fleet.js';

/** How long a cancel waits for the calls in flight on every worker to be aborted (as the in-process runner does). */
const CANCEL_WAIT_MS = 2_000;
const REMOVE_CHUNK = 200;

/** Options of a plan job (and, with their own ids, of document jobs): retried with backoff, kept a while. */
export const JOB_OPTIONS = {
  attempts: ATTEMPTS,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 24 * 3_600 },
} as const;

const toRef = (data: JobData): IterationRef => ({
  organization_id: data.organization_id,
  evaluation_id: data.evaluation_id,
  iteration_id: data.iteration_id,
});

/**
 * The queue runner over one fleet: `enqueue` puts a plan job on the `plans` queue (a worker plans the job and puts
 * one job per document on the model's queue); `cancel` flags the job (no new call starts on any worker), removes its
 * queued jobs and waits for the calls in flight to be aborted; `stats` reads the queues.
 */
export function queueRunner(fleet: Fleet, work: JobWork): JobRunner & { stats(): Promise<JobRunnerStats> } {
  let warned = false;
  async function enqueue(ref: IterationRef): Promise<void> {
    const job = await work.describe(ref);
    if (!job || (job.status !== 'queued' && job.status !== 'running')) return;
    // The model's queue is opened now: its fleet-wide limits (when configured here) are in Redis before any worker
    // takes one of its documents, and workers learn the model from the set.
    await fleet.documents(job.model);
    await fleet.addModel(job.model);
    // The iteration's span is the active one here: its context travels with the job to the workers.
    const trace = traceCarrier();
    // Plans take turns between organizations too: one organization's backlog of plans does not hold another's.
    const priority = Math.min(PRIORITY_LIMIT, await fleet.fairPriorities(fleet.plans, ref.organization_id, 1));
    await fleet.plans.add('plan', { ...toRef(ref), ...(trace ? { trace } : {}) }, { jobId: planJobId(job.job_id), priority, ...JOB_OPTIONS });
    const workers = await fleet.plans.getWorkersCount();
    if (workers === 0 && !warned) {
      warned = true;
      fleet.log(`[docevals/bullmq] no worker is connected to the queue: iteration ${ref.iteration_id} stays queued until one starts (pnpm worker)`);
    } else if (workers > 0) warned = false;
  }
  return {
    enqueue,

    async cancel(ref) {
      const job = await work.describe(ref);
      if (!job || (job.status !== 'queued' && job.status !== 'running')) return;
      // First the flag (atomic with its announcement): from here no worker starts a call for this job.
      await fleet.cancel(job.job_id);
      await fleet.plans.remove(planJobId(job.job_id)).catch(() => 0);
      const queue = await fleet.documents(job.model);
      const ids = await fleet.redis.smembers(fleet.key('queued', job.job_id));
      for (let i = 0; i < ids.length; i += REMOVE_CHUNK) {
        // A job a worker holds is locked (not removed): the worker aborts it on the announcement and skips it.
        await Promise.all(ids.slice(i, i + REMOVE_CHUNK).map((id) => queue.remove(id).catch(() => 0)));
      }
      const deadline = Date.now() + CANCEL_WAIT_MS;
      while ((await fleet.inFlight(job.job_id)) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    },

    async start() {
      // Jobs left queued (their plan job lost, e.g. a Redis restarted without persistence) are enqueued again: a plan
      // job's id is the docevals job's, so one already there is not added twice.
      for await (const ref of work.resumable()) await enqueue(ref);
    },

    async close() {
      await fleet.close();
    },

    async stats() {
      const models: Record<string, JobRunnerStats> = {};
      for (const model of (await fleet.models()).sort()) {
        const queue = await fleet.documents(model);
        const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'failed');
        const recorded = await fleet.redis.hgetall(fleet.key('stats', model));
        models[model] = {
          depth: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0),
          running: counts.active ?? 0,
          completed: Number(recorded.succeeded ?? 0),
          failed: Number(recorded.failed ?? 0) + (counts.failed ?? 0),
        };
      }
      const plans = await fleet.plans.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
      return {
        runner: 'bullmq',
        workers: await fleet.plans.getWorkersCount(),
        plans: { depth: (plans.waiting ?? 0) + (plans.prioritized ?? 0) + (plans.delayed ?? 0), running: plans.active ?? 0 },
        models,
      };
    },
  };
}

/**
 * The job runner of an API server in queue mode: starting an iteration enqueues it on BullMQ, and worker processes
 * ({@link createDocevalsWorker}) on any machine run its documents. With no worker connected, iterations stay
 * `queued` (the server logs it once, and `jobStats()` / `GET /health?detail=true` shows `workers: 0`).
 *
 * @example
 * import { createDocevals } from '@docevals/core';
 * import { redisStorage } from '@docevals/adapters/redis';
 * import { bullmqJobRunner } from '@docevals/bullmq';
 *
 * const docevals = createDocevals({
 *   storage: redisStorage({ url: 'redis://127.0.0.1:6379' }),
 *   extractors,
 *   jobs: { runner: bullmqJobRunner({ connection: 'redis://127.0.0.1:6379', limits: { '*': { concurrency: 8 } } }) },
 * });
 */
export function bullmqJobRunner(options: QueueOptions): (work: JobWork) => JobRunner {
  return (work) => queueRunner(new Fleet(options), work);
}
