import { randomUUID } from 'node:crypto';
import { Worker, type Job } from 'bullmq';
import { createDocevals, type Docevals, type DocevalsOptions, type Extractor, type JobWork, type Storage } from '@docevals/core';
import {
  ATTEMPTS,
  bullConnection,
  documentJobId,
  documentQueueName,
  Fleet,
  KEY_TTL_SECONDS,
  PLANS_QUEUE,
  type DocumentJobData,
  type JobData,
  type QueueOptions,
} from './fleet.js';
import { JOB_OPTIONS, queueRunner } from './runner.js';

export interface DocevalsWorkerOptions extends QueueOptions {
  /** The same store as the API servers'. */
  storage: Storage;
  /** The same extractors (model configuration) as the API servers'. */
  extractors: Extractor[];
  /** Documents run at once by this process, per model (BullMQ worker concurrency). @default 8 */
  concurrency?: number;
  /**
   * BullMQ's lock on a document job, renewed while it runs; a worker that dies loses it and the stalled-job check
   * (every `lockMs` too) puts the document back for another worker. @default 30_000
   */
  lockMs?: number;
  /** Timeouts and retries of one extractor call (provider errors are retried with backoff there). */
  extraction?: DocevalsOptions['extraction'];
  /**
   * How often the worker looks for models that got a queue since it started (a new model is also announced on a
   * channel, so this only catches a missed announcement). @default 5_000
   */
  discoverMs?: number;
}

export interface DocevalsWorker {
  /** The service this worker runs documents through (the same operations as an API server's). */
  readonly docevals: Docevals;
  /** Stops taking jobs, lets the documents in flight finish, closes the queues and the storage. */
  close(): Promise<void>;
}

const PLAN_CONCURRENCY = 2;
const ADD_CHUNK = 500;

/**
 * A worker process of the queue mode (docs/workers.md): takes iterations' plan jobs and documents from BullMQ on
 * `connection`, runs each document through `extractors` and records it in `storage` (the API servers' store), and
 * records an iteration's outcome when its last document is recorded. Start as many as the provider allows, on any
 * machine that reaches Redis and the store; the fleet-wide per-model `limits` bound them all together.
 *
 * @example
 * import { redisStorage } from '@docevals/adapters/redis';
 * import { openaiExtractor } from '@docevals/openai';
 * import { createDocevalsWorker } from '@docevals/bullmq';
 *
 * const worker = await createDocevalsWorker({
 *   storage: redisStorage({ url: process.env.REDIS_URL }),
 *   extractors: [openaiExtractor({ apiKey: process.env.OPENAI_API_KEY, models: ['*'] })],
 *   connection: process.env.REDIS_URL!,
 *   concurrency: 8,
 * });
 * process.on('SIGTERM', () => void worker.close());
 */
export async function createDocevalsWorker(options: DocevalsWorkerOptions): Promise<DocevalsWorker> {
  const fleet = new Fleet(options);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 8));
  const lockMs = options.lockMs ?? 30_000;
  const connection = bullConnection(options.connection);
  let work: JobWork | undefined;
  const docevals = createDocevals({
    storage: options.storage,
    extractors: options.extractors,
    ...(options.extraction ? { extraction: options.extraction } : {}),
    jobs: {
      resume: false,
      runner: (given) => {
        work = given;
        return queueRunner(fleet, given);
      },
    },
  });
  const jobs = work!;
  const workerId = `worker_${randomUUID().slice(0, 8)}`;
  let closing: Promise<void> | undefined;

  // Calls in flight here, by docevals job id: a cancel announced on the channel aborts them.
  const running = new Map<string, Set<AbortController>>();

  const refOf = (data: JobData) => ({ organization_id: data.organization_id, evaluation_id: data.evaluation_id, iteration_id: data.iteration_id });

  /** A document done (recorded, or given up after its attempts): counted once; the last one records the outcome. */
  async function recorded(data: DocumentJobData, status: string): Promise<void> {
    const left = await fleet.record(data.job_id, data.document_id, data.model, status);
    if (left <= 0) await jobs.finish(refOf(data), data.job_id);
  }

  async function plan(job: Job<JobData>): Promise<string> {
    const ref = refOf(job.data);
    const planned = await jobs.plan(ref);
    if (!planned) return 'nothing to run';
    const { job_id: jobId, model } = planned;
    if (planned.document_ids.length === 0) {
      await jobs.finish(ref, jobId);
      return 'finished';
    }
    // Set once per job: a plan re-run (its worker died) lists fewer documents, and those recorded stay counted.
    await fleet.redis.set(fleet.key('remaining', jobId), planned.document_ids.length, 'EX', KEY_TTL_SECONDS, 'NX');
    await fleet.addModel(model);
    const queue = await fleet.documents(model);
    for (let i = 0; i < planned.document_ids.length; i += ADD_CHUNK) {
      const chunk = planned.document_ids.slice(i, i + ADD_CHUNK).map((documentId) => ({
        name: 'document',
        data: { ...ref, job_id: jobId, document_id: documentId, model },
        opts: { jobId: documentJobId(jobId, documentId), ...JOB_OPTIONS },
      }));
      const queuedKey = fleet.key('queued', jobId);
      await fleet.redis.multi().sadd(queuedKey, ...chunk.map((c) => c.opts.jobId)).expire(queuedKey, KEY_TTL_SECONDS).exec();
      await queue.addBulk(chunk);
    }
    // A cancel that read the queued set before these were added: remove them here.
    if (await fleet.cancelled(jobId)) {
      for (const documentId of planned.document_ids) await queue.remove(documentJobId(jobId, documentId)).catch(() => 0);
    }
    return `${planned.document_ids.length} documents`;
  }

  async function runDocument(job: Job<DocumentJobData>): Promise<string> {
    const started = performance.now();
    const data = job.data;
    const token = `${workerId}:${job.id}:${job.attemptsMade}`;
    const line = (what: string) =>
      fleet.log(`[docevals/worker] ${data.model} ${data.iteration_id} ${data.document_id} ${what} ${Math.round(performance.now() - started)} ms (attempt ${job.attemptsMade + 1})`);
    // Registered before the flag check, so a cancel announced right after the check still reaches this call.
    const controller = new AbortController();
    let set = running.get(data.job_id);
    if (!set) running.set(data.job_id, (set = new Set()));
    set.add(controller);
    const unregister = () => {
      set.delete(controller);
      if (set.size === 0) running.delete(data.job_id);
    };
    // Atomic with the cancel flag: once a cancel is acknowledged, no call starts.
    if (!(await fleet.enter(data.job_id, token))) {
      unregister();
      line('skipped (cancelled)');
      return 'cancelled';
    }
    let outcome;
    try {
      outcome = await jobs.runDocument(refOf(data), data.job_id, data.document_id, controller.signal);
    } finally {
      unregister();
      await fleet.leave(data.job_id, token);
    }
    if (outcome.status === 'skipped' && controller.signal.aborted) {
      line('aborted (cancelled)');
      return 'cancelled';
    }
    await recorded(data, outcome.status === 'skipped' ? 'skipped' : outcome.status);
    line(outcome.status === 'failed' ? `failed: ${outcome.error}` : outcome.status);
    return outcome.status;
  }

  const workerOptions = { connection, prefix: fleet.prefix, lockDuration: lockMs, stalledInterval: lockMs, name: workerId };
  const workers: Array<Worker<JobData, string> | Worker<DocumentJobData, string>> = [];
  const logFailure = (kind: string, job: Job | undefined, error: Error) =>
    fleet.log(`[docevals/worker] ${kind} ${job?.id ?? '?'} attempt ${job?.attemptsMade ?? '?'} failed: ${error.message}`);
  const documentFailed = (job: Job<DocumentJobData> | undefined, error: Error) => {
    logFailure('document', job, error);
    // After its last attempt a document is counted done (it stays without a prediction: pending), so the
    // iteration still ends.
    if (job && job.attemptsMade >= (job.opts.attempts ?? ATTEMPTS)) {
      void recorded(job.data, 'failed').catch((e: unknown) => fleet.log(`[docevals/worker] ${String(e)}`));
    }
  };
  const planWorker = new Worker<JobData, string>(PLANS_QUEUE, plan, { ...workerOptions, concurrency: PLAN_CONCURRENCY });
  planWorker.on('failed', (job, error) => logFailure('plan', job, error));
  planWorker.on('error', (error) => fleet.log(`[docevals/worker] ${error.message}`));
  workers.push(planWorker);

  const opened = new Set<string>();
  async function discover(): Promise<void> {
    for (const model of await fleet.models()) {
      if (opened.has(model) || closing) continue;
      opened.add(model);
      const worker = new Worker<DocumentJobData, string>(documentQueueName(model), runDocument, { ...workerOptions, concurrency });
      worker.on('failed', documentFailed);
      worker.on('error', (error) => fleet.log(`[docevals/worker] ${error.message}`));
      workers.push(worker);
    }
  }
  // Cancels (abort the calls of a job) and new models (open their worker) are announced on two channels.
  const subscriber = fleet.redis.duplicate();
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === fleet.modelsChannel) void discover().catch((e: unknown) => fleet.log(`[docevals/worker] ${String(e)}`));
    else for (const controller of running.get(message) ?? []) controller.abort('cancelled');
  });
  await subscriber.subscribe(fleet.cancelChannel, fleet.modelsChannel);
  await discover();
  const timer = setInterval(() => void discover().catch((e: unknown) => fleet.log(`[docevals/worker] ${String(e)}`)), options.discoverMs ?? 5_000);
  timer.unref();

  return {
    docevals,
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        await Promise.all(workers.map((w) => w.close()));
        subscriber.disconnect();
        await docevals.close();
      })();
      return closing;
    },
  };
}
