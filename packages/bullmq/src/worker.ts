import { randomUUID } from 'node:crypto';
import { Worker, type Job, type Queue } from 'bullmq';
import {
  createDocevalsWithJobs,
  type Docevals,
  type DocevalsOptions,
  type Extractor,
  type JobPlan,
  type JobWork,
  type Storage,
} from '@docevals/core';
import { activeTraceId, ATTR, SEMCONV, SPAN, startSpan, withTraceCarrier } from '@docevals/core/internal';
import {
  ATTEMPTS,
  bullConnection,
  documentJobId,
  documentQueueName,
  Fleet,
  KEY_TTL_SECONDS,
  PLANS_QUEUE,
  PRIORITY_LIMIT,
  type DocumentJobData,
  type JobData,
  type QueueOptions,
} from './fleet.js';
import { batchEntries } from './batch-entries.js';
import { JOB_OPTIONS, queueRunner } from './runner.js';

export interface DocevalsWorkerOptions extends QueueOptions {
  /** The same store as the API servers'. */
  storage: Storage;
  /** The same extractors (model configuration) as the API servers'. */
  extractors: Extractor[];
  /** The same organization-secrets cipher as the API servers' (each organization's provider keys). */
  secrets?: DocevalsOptions['secrets'];
  /** Documents run at once by this process, per model (BullMQ worker concurrency). @default 8 */
  concurrency?: number;
  /**
   * BullMQ's lock on a document job, renewed every quarter of it while the job runs; a worker that dies loses it,
   * and the stalled-job check (every half of it) puts the documents back for another worker: at most 1.5 x `lockMs`
   * after the death (7.5 s by default). A worker whose event loop stalls for more than three quarters of `lockMs` (a
   * machine overloaded many times over) loses its lock too, and its batch may run twice: raise it there.
   * @default 5_000
   */
  lockMs?: number;
  /** Timeouts and retries of one extractor call (provider errors are retried with backoff there). */
  extraction?: DocevalsOptions['extraction'];
  /**
   * How often the worker looks for models that got a queue since it started (a new model is also announced on a
   * channel, so this only catches a missed announcement). @default 5_000
   */
  discoverMs?: number;
  /**
   * Most documents in one queue job (a batch, run one document after the other: the fleet-wide limit on jobs in
   * flight stays a limit on calls). A plan makes batches of equal size, as many as keep every slot of the fleet busy
   * for several rounds, and no larger than this: small iterations and slow models still get one job per document.
   * 1: always one job per document. @default 4
   */
  maxBatch?: number;
}

export interface DocevalsWorker {
  /** The service this worker runs documents through (the same operations as an API server's). */
  readonly docevals: Docevals;
  /** Stops taking jobs, lets the documents in flight finish, closes the queues and the storage. */
  close(): Promise<void>;
}

const PLAN_CONCURRENCY = 2;
const ADD_CHUNK = 500;
/** Each slot of the fleet (a call in flight) gets at least this many batches when there are documents enough. */
const ROUNDS = 4;

/**
 * How many batches a job of `selected` documents is cut into, for `slots` calls in flight across the fleet and at
 * most `maxBatch` documents a batch: a multiple of the slots (each slot gets the same number of batches, of sizes
 * that differ by one at most), enough for {@link ROUNDS} rounds when documents allow, never more than the documents.
 */
export function batchCount(selected: number, slots: number, maxBatch: number): number {
  if (selected <= 0) return 0;
  const perSlot = Math.max(ROUNDS, Math.ceil(selected / (Math.max(1, slots) * Math.max(1, maxBatch))));
  return Math.min(selected, Math.max(1, slots) * perSlot);
}

/** Groups a plan's documents into batches by their place in the job's selection (the same batches on a re-plan). */
export function batchesOf(documentIds: readonly string[], positions: readonly number[], selected: number, count: number): Map<number, string[]> {
  const batches = new Map<number, string[]>();
  documentIds.forEach((id, i) => {
    const batch = Math.floor(((positions[i] ?? i) * count) / Math.max(1, selected));
    const list = batches.get(batch);
    if (list) list.push(id);
    else batches.set(batch, [id]);
  });
  return batches;
}
/** What the processors of one worker process share. */
interface WorkerContext {
  readonly fleet: Fleet;
  /** The job steps core answers (plan, run documents, finish). */
  readonly jobs: JobWork;
  readonly workerId: string;
  /** Documents run at once by this process, per model. */
  readonly concurrency: number;
  readonly maxBatch: number;
}

const refOf = (data: JobData) => ({ organization_id: data.organization_id, evaluation_id: data.evaluation_id, iteration_id: data.iteration_id });

/** Logs an error of a step nobody awaits (a channel message, a timer, a failed job's bookkeeping). */
const logError = (fleet: Fleet) => (error: unknown) => fleet.log(`[docevals/worker] ${String(error)}`);

/** Documents done (recorded, or given up after their attempts): each counted once; the last one records the outcome. */
async function recorded(ctx: WorkerContext, data: DocumentJobData, done: ReadonlyArray<readonly [string, string]>): Promise<void> {
  const left = await ctx.fleet.record(data.job_id, data.model, done);
  if (left <= 0) await ctx.jobs.finish(refOf(data), data.job_id);
}

/**
 * The job's batch count, set once per job: a plan re-run (its worker died) lists fewer documents, and those recorded
 * stay counted; it also finds the batch count of the first run, so its batches get the same ids (BullMQ adds each once).
 */
async function batchCountOf(ctx: WorkerContext, queue: Queue<DocumentJobData>, planned: JobPlan): Promise<{ count: number; slots: number }> {
  const { fleet } = ctx;
  const slots = Math.min((await queue.getGlobalConcurrency()) ?? Infinity, Math.max(1, await fleet.plans.getWorkersCount()) * ctx.concurrency);
  const batchesKey = fleet.key('batches', planned.job_id);
  const written = await fleet.redis
    .multi()
    .set(fleet.key('remaining', planned.job_id), planned.document_ids.length, 'EX', KEY_TTL_SECONDS, 'NX')
    .set(batchesKey, batchCount(planned.selected, slots, ctx.maxBatch), 'EX', KEY_TTL_SECONDS, 'NX')
    .get(batchesKey)
    .exec();
  const count = Number(written?.[2]?.[1]);
  if (!Number.isInteger(count) || count < 1) throw new Error(`job ${planned.job_id}: no batch count in Redis`);
  return { count, slots };
}

/**
 * Adds a plan's batches to its model's queue, each listed first in the job's `queued` set (what a cancel removes).
 * The first `slots` batches go alone (BullMQ adds a bulk in one transaction, ~0.2 ms of Redis per job): the fleet's
 * slots start on them while the others are added.
 */
async function enqueueBatches(fleet: Fleet, queue: Queue<DocumentJobData>, data: JobData, planned: JobPlan, batches: Array<[number, string[]]>, slots: number): Promise<void> {
  const { job_id: jobId, model } = planned;
  // Fair turns between organizations (docs/workers.md): the batches' priorities follow the others' queued ones.
  const first = await fleet.fairPriorities(queue, data.organization_id, batches.length);
  const firstChunk = Math.max(1, Math.min(ADD_CHUNK, slots));
  for (let i = 0; i < batches.length; i += i === 0 ? firstChunk : ADD_CHUNK) {
    const chunk = batches.slice(i, i + (i === 0 ? firstChunk : ADD_CHUNK)).map(([batch, documentIds], k) => ({
      name: 'documents',
      data: { ...refOf(data), job_id: jobId, document_ids: documentIds, model, ...(data.trace ? { trace: data.trace } : {}) },
      opts: { jobId: documentJobId(jobId, batch), priority: Math.min(PRIORITY_LIMIT, first + i + k), ...JOB_OPTIONS },
    }));
    const queuedKey = fleet.key('queued', jobId);
    await fleet.redis.multi().sadd(queuedKey, ...chunk.map((c) => c.opts.jobId)).expire(queuedKey, KEY_TTL_SECONDS).exec();
    await queue.addBulk(chunk);
  }
}

/** A plan job: plans the iteration's documents and enqueues them in batches on their model's queue. */
async function plan(ctx: WorkerContext, job: Job<JobData>): Promise<string> {
  const { fleet, jobs } = ctx;
  await fleet.advance(PLANS_QUEUE, job.opts.priority);
  const ref = refOf(job.data);
  const planned = await jobs.plan(ref);
  if (!planned) return 'nothing to run';
  const { job_id: jobId, model } = planned;
  if (planned.document_ids.length === 0) {
    await jobs.finish(ref, jobId);
    return 'finished';
  }
  await fleet.addModel(model);
  const queue = await fleet.documents(model);
  const { count, slots } = await batchCountOf(ctx, queue, planned);
  const batches = [...batchesOf(planned.document_ids, planned.document_positions, planned.selected, count)];
  await enqueueBatches(fleet, queue, job.data, planned, batches, slots);
  // A cancel that read the queued set before these were added: remove them here.
  if (await fleet.cancelled(jobId)) {
    for (const [batch] of batches) await queue.remove(documentJobId(jobId, batch)).catch(() => 0);
  }
  return `${planned.document_ids.length} documents in ${batches.length} batches`;
}

/** The span of a batch job: a sibling of its documents' spans, it says how long the job waited in the queue. */
function startBatchSpan(job: Job<DocumentJobData>, attempt: number): ReturnType<typeof startSpan> {
  const data = job.data;
  return startSpan(SPAN.queueBatch, {
    attributes: {
      [SEMCONV.genAiRequestModel]: data.model,
      [ATTR.iteration]: data.iteration_id,
      [ATTR.batchSize]: data.document_ids.length,
      // The wait of the job's first attempt (a retry's includes its backoff).
      ...(attempt === 1 ? { [ATTR.queueWaitMs]: Math.max(0, Date.now() - job.timestamp) } : {}),
    },
  });
}

/** A document's log line of a batch (written after the batch) and its fields. */
function documentLine(data: DocumentJobData, attempt: number, traceId: string | undefined, documentId: string, outcome: { status: string; what: string }, ms: number): [string, Record<string, string | number>] {
  return [
    `[docevals/worker] ${data.model} ${data.iteration_id} ${documentId} ${outcome.what} ${ms} ms (attempt ${attempt})`,
    { model: data.model, iteration_id: data.iteration_id, document_id: documentId, outcome: outcome.status, duration_ms: ms, attempt, ...(traceId ? { trace_id: traceId } : {}) },
  ];
}

/**
 * A batch of documents, one after the other: each call entered in the fleet unless the job was cancelled (see
 * {@link batchEntries}); a last step after the batch (its events written) records its documents.
 */
async function runBatch(ctx: WorkerContext, job: Job<DocumentJobData>, signal: AbortSignal | undefined): Promise<string> {
  const { fleet, jobs } = ctx;
  const data = job.data;
  // The queue's fair turns move on beside the batch's reads.
  void fleet.advance(documentQueueName(data.model), job.opts.priority).catch(logError(fleet));
  const attempt = job.attemptsMade + 1;
  // BullMQ's signal: a cancel announced on the channel aborts it (worker.cancelJob), and with it the call in flight.
  const aborted = signal ?? new AbortController().signal;
  const entries = batchEntries(fleet, `${ctx.workerId}:${job.id}:${attempt}`, data);
  const done: Array<readonly [string, string]> = [];
  const lines: Array<[string, Record<string, string | number>]> = [];
  const batchStarted = performance.now();
  const callStarted = new Map<string, number>();
  let cancelled = false;
  // Under the iteration's trace context (from the API server): each document's span is a child of the iteration's.
  let batchSpan: ReturnType<typeof startSpan> | undefined;
  try {
    const traceId = activeTraceId();
    batchSpan = startBatchSpan(job, attempt);
    await jobs.runDocuments(refOf(data), data.job_id, data.document_ids, aborted, {
      beforeCall: async (documentId, next) => {
        callStarted.set(documentId, performance.now());
        return entries.beforeCall(documentId, next);
      },
      afterDocument: (documentId, outcome) => {
        const ms = Math.round(performance.now() - (callStarted.get(documentId) ?? batchStarted));
        if (outcome.status === 'skipped' && (aborted.aborted || outcome.error === 'cancelled')) {
          cancelled = true;
          lines.push(documentLine(data, attempt, traceId, documentId, { status: 'cancelled', what: 'skipped (cancelled)' }, ms));
          return;
        }
        done.push([documentId, outcome.status]);
        const what = outcome.status === 'failed' ? `failed: ${outcome.error}` : outcome.status;
        lines.push(documentLine(data, attempt, traceId, documentId, { status: outcome.status, what }, ms));
      },
    });
  } finally {
    batchSpan?.end();
    try {
      // Documents are recorded by the last step only: after the batch's events are written, so the job's final
      // event (written by the step that records its last document) comes after every document's. The step that
      // records the last document records the outcome (its span, under the iteration's trace).
      const answer = await entries.last(done);
      if (answer && done.length > 0 && answer.left <= 0) await jobs.finish(refOf(data), data.job_id);
    } finally {
      for (const [line, fields] of lines) fleet.log(line, fields);
    }
  }
  return cancelled ? 'cancelled' : `${data.document_ids.length} documents`;
}

// A dead worker's job is marked by the first stalled check after its last renewal and moved back by the first
// check after its lock expired: within lockMs + stalledInterval of the death. Renewing every quarter of the lock
// lets a live worker's event loop stall for three quarters of it (half with BullMQ's default) without losing it.
function workerOptionsOf(fleet: Fleet, options: DocevalsWorkerOptions, workerId: string) {
  const lockMs = options.lockMs ?? 5_000;
  return {
    connection: bullConnection(options.connection),
    prefix: fleet.prefix,
    lockDuration: lockMs,
    lockRenewTime: Math.floor(lockMs / 4),
    stalledInterval: Math.floor(lockMs / 2),
    name: workerId,
  };
}

const logFailure = (fleet: Fleet, kind: string, job: Job | undefined, error: Error) =>
  fleet.log(`[docevals/worker] ${kind} ${job?.id ?? '?'} attempt ${job?.attemptsMade ?? '?'} failed: ${error.message}`);

type AnyWorker = Worker<JobData, string> | Worker<DocumentJobData, string>;

/**
 * The per-model document workers of this process: `discover` opens one for each model that got a queue (while not
 * `closing`), `abortBatches` aborts this process's batches of a cancelled job. Each opened worker joins `workers`.
 */
function documentWorkers(ctx: WorkerContext, workerOptions: ReturnType<typeof workerOptionsOf>, workers: AnyWorker[], closing: () => boolean) {
  const { fleet } = ctx;
  const opened = new Set<string>();
  const models: Array<Worker<DocumentJobData, string>> = [];
  const documentFailed = (job: Job<DocumentJobData> | undefined, error: Error) => {
    logFailure(fleet, 'document', job, error);
    // After its last attempt a document is counted done (it stays without a prediction: pending), so the
    // iteration still ends.
    if (job && job.attemptsMade >= (job.opts.attempts ?? ATTEMPTS)) {
      void recorded(ctx, job.data, job.data.document_ids.map((id) => [id, 'failed'] as const)).catch(logError(fleet));
    }
  };
  return {
    async discover(): Promise<void> {
      for (const model of await fleet.models()) {
        if (opened.has(model) || closing()) continue;
        opened.add(model);
        // The model's queue (what a plan adds batches to) is opened now, not at this process's first plan.
        void fleet.documents(model).catch(logError(fleet));
        const worker = new Worker<DocumentJobData, string>(documentQueueName(model), (job, _token, signal) => withTraceCarrier(job.data.trace, () => runBatch(ctx, job, signal)), { ...workerOptions, concurrency: ctx.concurrency });
        worker.on('failed', documentFailed);
        models.push(worker);
        worker.on('error', (error) => fleet.log(`[docevals/worker] ${error.message}`));
        workers.push(worker);
      }
    },
    /** Aborts this worker's batches of a cancelled job: its batch ids are the job's `queued` set (BullMQ job ids). */
    async abortBatches(jobId: string): Promise<void> {
      const ids = await fleet.redis.smembers(fleet.key('queued', jobId));
      for (const worker of models) for (const id of ids) worker.cancelJob(id, 'cancelled');
    },
  };
}

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
  // The service (its operations enqueue on this fleet) and the job steps this worker runs, both answered by core.
  const { docevals, work: jobs } = createDocevalsWithJobs({
    storage: options.storage,
    extractors: options.extractors,
    ...(options.extraction ? { extraction: options.extraction } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    jobs: { resume: false, runner: (work) => queueRunner(fleet, work) },
  });
  const ctx: WorkerContext = {
    fleet,
    jobs,
    workerId: `worker_${randomUUID().slice(0, 8)}`,
    concurrency: Math.max(1, Math.floor(options.concurrency ?? 8)),
    maxBatch: Math.max(1, Math.floor(options.maxBatch ?? 4)),
  };
  let closing: Promise<void> | undefined;
  const workerOptions = workerOptionsOf(fleet, options, ctx.workerId);
  const workers: AnyWorker[] = [];
  // Each processor runs under the iteration's trace context (from the API server): every span a job makes (its store
  // calls, its documents, the outcome) joins the iteration's trace instead of starting one of its own.
  const planWorker = new Worker<JobData, string>(PLANS_QUEUE, (job) => withTraceCarrier(job.data.trace, () => plan(ctx, job)), { ...workerOptions, concurrency: PLAN_CONCURRENCY });
  planWorker.on('failed', (job, error) => logFailure(fleet, 'plan', job, error));
  planWorker.on('error', (error) => fleet.log(`[docevals/worker] ${error.message}`));
  workers.push(planWorker);

  const documents = documentWorkers(ctx, workerOptions, workers, () => closing !== undefined);
  // Cancels (abort the calls of a job) and new models (open their worker) are announced on two channels.
  const subscriber = fleet.redis.duplicate();
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === fleet.modelsChannel) void documents.discover().catch(logError(fleet));
    else void documents.abortBatches(message).catch(logError(fleet));
  });
  await subscriber.subscribe(fleet.cancelChannel, fleet.modelsChannel);
  await documents.discover();
  const timer = setInterval(() => void documents.discover().catch(logError(fleet)), options.discoverMs ?? 5_000);
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
