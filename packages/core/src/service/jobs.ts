import { nanoid } from 'nanoid';
import { asError, DocevalsError } from '../errors.js';
import type { IterationEvent, IterationSummary } from '../schemas/index.js';
import {
  JOBS_SCOPE,
  type DocumentRecord,
  type IterationEventRecord,
  type IterationJob,
  type IterationRecord,
  type IterationStatus,
  type JobRecord,
  type JobSelection,
  type PredictionRecord,
} from '../storage.js';
import type { JsonObject } from '../json/assert-json.js';
import type { ServiceContext } from './context.js';
import { runDocuments, type RunOutcome } from './iteration-steps.js';
import { predictionsFor, READ_PAGE, readAllDocuments } from './reads.js';
import { renderIterationSummary, tallyOf } from './render.js';
import { updateRecord } from './update-record.js';

/**
 * Iterations as durable jobs (docs/spec/jobs.md). The job's state is in the Storage: the iteration record names the
 * job (`job`), its status and lease; each prediction names the job that wrote it; the `events` child collection
 * holds the job's events in order; the `jobs` collection lists active jobs for runners to find after a restart.
 */

/** Names one iteration, for a {@link JobRunner}. */
export interface IterationRef {
  organization_id: string;
  evaluation_id: string;
  iteration_id: string;
}

/**
 * Runs iterations' jobs. The in-process runner ({@link inProcessJobRunner}) is the default; a queue (BullMQ
 * workers) is another implementation calling the same {@link JobWork.run}.
 */
export interface JobRunner {
  /** Asks for the iteration's job to run (it may already be running or queued: then nothing changes). */
  enqueue(ref: IterationRef): void | Promise<void>;
  /** Stops local work on the iteration at once: no new extractor call, calls in flight aborted. */
  cancel(ref: IterationRef): void | Promise<void>;
  /** Resumes jobs left `queued` / `running` with an expired or absent lease, and keeps watching for them. */
  start(): Promise<void>;
  /** Stops: local runs are aborted and their leases released (another runner resumes them). */
  close(): Promise<void>;
  /**
   * What the runner's queues hold now (a queue runner: depth, running, failed, completed per model, workers seen),
   * for a host's health detail. Absent for the in-process runner.
   */
  stats?(): Promise<JobRunnerStats>;
}

/** {@link JobRunner.stats}: JSON a host shows as it is (`GET /health?detail=true`). */
export type JobRunnerStats = JsonObject;

/** {@link JobWork.plan}: the job taken by a queue, and the documents it still has to run. */
export interface JobPlan {
  job_id: string;
  model: string;
  /** Documents of the job's selection that the job has not written yet, in the evaluation's order. */
  document_ids: string[];
  /**
   * Each of `document_ids`' place in the job's selection (all the documents the job covers, written or not): stable
   * across plans of one job, so a queue that groups documents into batches by place groups them the same way when a
   * plan is run again.
   */
  document_positions: number[];
  /** How many documents the job's selection holds (written or not). */
  selected: number;
}

/** {@link JobWork.runDocuments}' hooks: a queue's checks around each extractor call. */
export interface QueuedDocumentHooks {
  /** Before a call starts: false skips the document (`skipped`, error `cancelled`). */
  beforeCall?(documentId: string): Promise<boolean>;
  /**
   * Each document's outcome once it is known (a called document's once its prediction is saved): saves overlap the
   * next call, so outcomes may come out of the batch's order.
   */
  afterDocument?(documentId: string, outcome: DocumentOutcome): Promise<void> | void;
}

/** {@link JobWork.runDocument}: what became of one document. */
export interface DocumentOutcome {
  /**
   * `succeeded` / `failed`: its prediction (and event) are saved (now, or earlier by this job: not called again);
   * `skipped`: nothing was written (the job is no longer running, the document is gone, or `signal` aborted).
   */
  status: 'succeeded' | 'failed' | 'skipped';
  /** The extractor's error (failed) or why it was skipped; else null. */
  error: string | null;
}

/** What the service gives a runner: run one job, list the active ones. */
export interface JobWork {
  /**
   * Takes the iteration's lease (compare-and-set), runs the documents of its job that the job has not written yet,
   * saving each as it completes, heartbeats the lease, and records the outcome. Returns without running when
   * another runner holds a live lease or the job is over. `signal` aborted: stops, releasing the lease.
   */
  run(ref: IterationRef, signal: AbortSignal): Promise<void>;
  /** Active jobs whose lease is absent or expired (or held by this runner's owner id). */
  resumable(): AsyncIterable<IterationRef>;
  /** The lease duration: a runner may scan every third of it. */
  readonly leaseMs: number;
  /*
   * A per-document queue (docs/spec/jobs.md, Queue mode): `plan` once per job, `runDocument` for each document on
   * any worker, `finish` when the last one is recorded. The iteration lease is then held by the queue
   * ({@link QUEUE_LEASE_OWNER}); the queue's own job locks protect each document.
   */
  /** The iteration's current job: its id, status and model; null when the iteration is gone or has no job. */
  describe(ref: IterationRef): Promise<{ job_id: string; status: IterationStatus; model: string } | null>;
  /**
   * Takes the job for the queue (compare-and-set: `running`, lease held by the queue) and lists the documents it
   * still has to run (writing the events a crash left unwritten). Null when the job is over, or held by a live
   * in-process lease. Calling it again for the same job is harmless (a queue re-running a stalled plan).
   */
  plan(ref: IterationRef): Promise<JobPlan | null>;
  /**
   * Extracts one document of the job and saves its prediction, then its event. Idempotent: a document this job
   * already wrote is not called again (its event is written if a crash lost it). Nothing runs unless the iteration
   * is `running` this job; `signal` aborts the call in flight (nothing saved).
   */
  runDocument(ref: IterationRef, jobId: string, documentId: string, signal: AbortSignal): Promise<DocumentOutcome>;
  /**
   * {@link JobWork.runDocument} for a small batch of one job's documents, one after the other (one extractor call at
   * a time: a queue's limit on jobs in flight stays a limit on calls), with the batch's reads in one round trip.
   * A document's save runs beside the next document's call; the batch's events are written together when they come
   * close together (every one is written before this returns). `hooks.beforeCall` may refuse a call (a cancel flag:
   * the document is `skipped`); `afterDocument` gets each outcome once its prediction is saved. Outcomes in the
   * order of `documentIds`.
   */
  runDocuments(
    ref: IterationRef,
    jobId: string,
    documentIds: readonly string[],
    signal: AbortSignal,
    hooks?: QueuedDocumentHooks,
  ): Promise<DocumentOutcome[]>;
  /**
   * Records the job's outcome (`completed`, or `failed` when no document succeeded) and its final event, once: a
   * compare-and-set that only a `running` iteration of this job passes. True when this call wrote it.
   */
  finish(ref: IterationRef, jobId: string): Promise<boolean>;
}

/** How the service runs jobs (DocevalsOptions.jobs). */
export interface JobOptions {
  /** Iterations running at once in this process; more wait in FIFO order. @default 4 */
  maxRunningIterations: number;
  /** Lease duration; renewed every third of it. A runner that stops renewing loses the job after it. @default 30_000 */
  leaseMs: number;
  /** Resume the store's unfinished jobs on start and watch for expired leases. @default true */
  resume: boolean;
  /** Another runner (a queue); called once with the work. @default the in-process runner */
  runner?: (work: JobWork) => JobRunner;
  /** Failures of background work (a store down while a job runs). @default console.error */
  onError?: (error: unknown) => void;
}

export const DEFAULT_JOB_OPTIONS: Readonly<Omit<JobOptions, 'runner' | 'onError'>> = Object.freeze({
  maxRunningIterations: 4,
  leaseMs: 30_000,
  resume: true,
});

/** What running jobs need besides the service context. */
export interface JobContext {
  /** This process's runner id, on the leases it takes. */
  owner: string;
  leaseMs: number;
  /** Wakes local event streams when this process writes an event (other processes are polled). */
  signals: LocalSignals;
  /**
   * Sync callers waiting in this process, by job id: a run that stops on an error (a store failing) leaves it here,
   * so the caller gets that error rather than a generic one.
   */
  waiting: Map<string, { error?: unknown }>;
}

export const newJobId = () => `job_${nanoid()}`;
export const isActive = (status: IterationStatus) => status === 'queued' || status === 'running';
const jobRecordId = (organizationId: string, iterationId: string) => `${organizationId}.${iterationId}`;
const finalEventId = (jobId: string) => `${jobId}.final`;
const documentEventId = (jobId: string, documentId: string) => `${jobId}.${documentId}`;

/** Per-iteration wake-ups for streams waiting on new events in this process. */
export class LocalSignals {
  private readonly waiters = new Map<string, Set<() => void>>();

  notify(iterationId: string): void {
    const set = this.waiters.get(iterationId);
    if (!set) return;
    this.waiters.delete(iterationId);
    for (const wake of set) wake();
  }

  /** Resolves on the next notify of the iteration, or after `ms` (events written by other servers are polled). */
  wait(iterationId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(iterationId);
      if (!set) this.waiters.set(iterationId, (set = new Set()));
      const wake = () => {
        clearTimeout(timer);
        set!.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
    });
  }
}

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

async function unregisterJob(ctx: ServiceContext, organizationId: string, iterationId: string, jobId: string): Promise<void> {
  const found = await ctx.storage.jobs.get(JOBS_SCOPE, jobRecordId(organizationId, iterationId));
  if (found && found.value.job_id === jobId) await ctx.storage.jobs.delete(JOBS_SCOPE, found.value.id, found.version);
}

/**
 * Writes the job's final event (insert-only: the first writer wins) with the iteration's summary, then drops the
 * job from the active list.
 */
async function writeFinalEvent(ctx: ServiceContext, jobs: JobContext, iteration: IterationRecord, job: IterationJob): Promise<void> {
  const tally = tallyOf(await ctx.storage.documents.totals(iteration.organization_id, iteration.evaluation_id));
  const summary = await renderIterationSummary(ctx, iteration, tally);
  const type = iteration.status as IterationEventRecord['type'];
  await ctx.storage.events.put(
    {
      id: finalEventId(job.id),
      organization_id: iteration.organization_id,
      parent_id: iteration.id,
      job_id: job.id,
      type,
      document_id: null,
      similarity: null,
      error: null,
      summary: summary as unknown as JsonObject,
      created_at: ctx.now(),
      updated_at: ctx.now(),
    },
    0,
  );
  jobs.signals.notify(iteration.id);
  await unregisterJob(ctx, iteration.organization_id, iteration.id, job.id);
}

/** The event of one finished document. */
function documentEvent(ctx: ServiceContext, prediction: PredictionRecord, jobId: string): IterationEventRecord {
  const now = ctx.now();
  return {
      id: documentEventId(jobId, prediction.id),
      organization_id: prediction.organization_id,
      parent_id: prediction.parent_id,
      job_id: jobId,
      type: 'document',
      document_id: prediction.id,
      similarity: prediction.status === 'succeeded' ? prediction.metrics.similarity : null,
      error: prediction.status === 'failed' ? String(prediction.metadata?.error ?? 'the extraction failed') : null,
      summary: null,
      created_at: now,
      updated_at: now,
  };
}

/** Writes one document's event (insert-only, so a resumed job never writes it twice). */
async function writeDocumentEvent(ctx: ServiceContext, jobs: JobContext, prediction: PredictionRecord, jobId: string): Promise<void> {
  await ctx.storage.events.put(documentEvent(ctx, prediction, jobId), 0);
  jobs.signals.notify(prediction.parent_id);
}

/**
 * Document events written in small batches (one commit or round trip for up to {@link EVENT_BATCH} events, or what
 * came within {@link EVENT_DELAY_MS}), so that a job's progress costs one store write per document (its prediction)
 * plus a share of a batch. Events a crash leaves unwritten are written on resume from the job's predictions.
 */
class EventBatch {
  private pending: IterationEventRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly jobs: JobContext,
    private readonly iterationId: string,
    private readonly delayMs = EVENT_DELAY_MS,
  ) {}

  add(prediction: PredictionRecord, jobId: string): void {
    this.pending.push(documentEvent(this.ctx, prediction, jobId));
    if (this.pending.length >= EVENT_BATCH) void this.flush().catch(() => undefined);
    else this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.delayMs);
  }

  /** Writes what is pending; rejects with the first write failure of the batch's life. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending.splice(0);
    if (batch.length > 0) this.chain = this.chain.then(() => this.write(batch));
    return this.chain.then(() => {
      if (this.failure !== undefined) throw asError(this.failure);
    });
  }

  private async write(batch: IterationEventRecord[]): Promise<void> {
    try {
      await this.ctx.storage.events.insertMany(batch);
    } catch (error) {
      if ((error as { code?: string }).code !== 'conflict') {
        this.failure ??= error;
        return;
      }
      // Another runner wrote some of them (a takeover): write the others one by one, insert-only.
      try {
        for (const record of batch) await this.ctx.storage.events.put(record, 0);
      } catch (inner) {
        this.failure ??= inner;
      }
    }
    this.jobs.signals.notify(this.iterationId);
  }
}

/**
 * A job's predictions saved by group commit: a prediction that finds no write under way is written at once; those
 * finished while a write is under way are written together by the next one (`putMany`, one commit or round trip),
 * at most {@link PREDICTION_BATCH} at a time. Each `save` resolves once its prediction is stored, so nothing is
 * acknowledged (event, progress) before it is durable, and no timer adds latency: batches grow only when the store
 * is the bottleneck (lowdb's fsync), which is when they pay.
 */
class PredictionWrites {
  private queue: Array<{ record: PredictionRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  private writing = false;

  constructor(private readonly ctx: ServiceContext) {}

  save(record: PredictionRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      // One batch holds each document once (a repeated id would be refused): it ends before a repeat.
      const ids = new Set<string>();
      let size = 0;
      while (size < this.queue.length && size < PREDICTION_BATCH && !ids.has(this.queue[size]!.record.id)) ids.add(this.queue[size++]!.record.id);
      const batch = this.queue.splice(0, size);
      try {
        // No expected version: a job's prediction replaces whatever is there, as `put` did.
        await this.ctx.storage.predictions.putMany(batch.map((e) => ({ record: e.record })));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.writing = false;
  }
}

const PREDICTION_BATCH = 64;
const EVENT_BATCH = 32;
const EVENT_DELAY_MS = 20;
/**
 * A queue batch runs its documents one after the other, so its events come one call apart: they are written together
 * when they come within this delay (a fast model), each on its own otherwise (a slow one: progress stays live).
 */
const QUEUE_EVENT_DELAY_MS = 100;

const leaseUntil = (ms: number) => new Date(Date.now() + ms).toISOString();
const leaseLive = (iteration: IterationRecord, now = Date.now()) =>
  iteration.lease !== null && Date.parse(iteration.lease.expires_at) > now;

/** Takes the lease by compare-and-set when the job is active and the lease is absent, expired or ours. */
async function takeLease(ctx: ServiceContext, jobs: JobContext, ref: IterationRef): Promise<IterationRecord | null> {
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
    return { write: next, result: next };
  });
  return taken?.result ?? null;
}

/** Renews the lease (compare-and-set); false when the job is no longer ours (cancelled, taken over, deleted). */
async function renewLease(ctx: ServiceContext, jobs: JobContext, ref: IterationRef, jobId: string): Promise<boolean> {
  const renewed = await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (current.status !== 'running' || current.job?.id !== jobId || current.lease?.owner !== jobs.owner) {
      return { skip: true, result: false };
    }
    return { write: { ...current, lease: { owner: jobs.owner, expires_at: leaseUntil(jobs.leaseMs) } }, result: true };
  });
  return renewed?.result ?? false;
}

/** Gives the lease back (a runner closing): another runner may resume the job at once. */
async function releaseLease(ctx: ServiceContext, jobs: JobContext, ref: IterationRef, jobId: string): Promise<void> {
  await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (current.job?.id !== jobId || current.lease?.owner !== jobs.owner) return { skip: true, result: undefined };
    return { write: { ...current, lease: null }, result: undefined };
  });
}

/**
 * The documents the job still has to run: those of its selection whose prediction was not written by this job
 * (`missing`: and that have no successful prediction). Documents the job already wrote get their event if a crash
 * came between the prediction and its event.
 */
async function pendingDocuments(
  ctx: ServiceContext,
  jobs: JobContext,
  iteration: IterationRecord,
  job: IterationJob,
  placed?: { positions: number[]; selected: number },
): Promise<DocumentRecord[]> {
  let documents = await readAllDocuments(ctx, iteration.organization_id, iteration.evaluation_id);
  const selection: JobSelection = job.selection;
  if (typeof selection === 'object') {
    const wanted = new Set(selection.document_ids);
    documents = documents.filter((d) => wanted.has(d.id));
  }
  if (placed) placed.selected = documents.length;
  const pending: DocumentRecord[] = [];
  for (let start = 0; start < documents.length; start += READ_PAGE) {
    const page = documents.slice(start, start + READ_PAGE);
    const predictions = await predictionsFor(ctx, iteration.organization_id, iteration.id, page);
    const done: PredictionRecord[] = [];
    page.forEach((document, i) => {
      const p = predictions[i];
      if (p && p.job_id === job.id) done.push(p);
      else if (!(selection === 'missing' && p && p.status === 'succeeded' && p.metadata !== null)) {
        pending.push(document);
        placed?.positions.push(start + i);
      }
    });
    if (done.length === 0) continue;
    const events = await ctx.storage.events.getMany(iteration.organization_id, iteration.id, done.map((p) => documentEventId(job.id, p.id)));
    for (const [i, event] of events.entries()) if (!event) await writeDocumentEvent(ctx, jobs, done[i]!, job.id);
  }
  return pending;
}

/** Records the job's outcome if the job is still ours and running: `failed` when no document succeeded. */
async function finishJob(
  ctx: ServiceContext,
  jobs: JobContext,
  ref: IterationRef,
  job: IterationJob,
  outcome: RunOutcome | (() => Promise<RunOutcome>),
  owner = jobs.owner,
): Promise<boolean> {
  const totals = await ctx.storage.predictions.totals(ref.organization_id, ref.iteration_id);
  const failedAll = (totals.sums.succeeded ?? 0) === 0 && (totals.sums.failed ?? 0) > 0;
  if (typeof outcome === 'function') outcome = failedAll ? await outcome() : { firstError: null };
  const { firstError } = outcome;
  const finished = await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (current.job?.id !== job.id || current.status !== 'running' || current.lease?.owner !== owner) {
      return { skip: true, result: null };
    }
    const now = ctx.now();
    const next: IterationRecord = {
      ...current,
      status: failedAll ? 'failed' : 'completed',
      error: failedAll ? (firstError ?? 'every document failed') : null,
      finished_at: now,
      lease: null,
      updated_at: now,
    };
    return { write: next, result: next };
  });
  if (!finished?.result) return false;
  await writeFinalEvent(ctx, jobs, finished.result, job);
  return true;
}

/** A run that stopped on an error (a store failing): the iteration is `failed` with it; predictions are kept. */
async function failJob(ctx: ServiceContext, jobs: JobContext, ref: IterationRef, job: IterationJob, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const failed = await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (current.job?.id !== job.id || !isActive(current.status)) return { skip: true, result: null };
    const now = ctx.now();
    const next: IterationRecord = { ...current, status: 'failed', error: message, finished_at: now, lease: null, updated_at: now };
    return { write: next, result: next };
  });
  if (failed?.result) await writeFinalEvent(ctx, jobs, failed.result, job);
}

/** {@link JobWork.run}. */
export async function runIterationJob(ctx: ServiceContext, jobs: JobContext, ref: IterationRef, signal: AbortSignal): Promise<void> {
  const iteration = await takeLease(ctx, jobs, ref);
  if (!iteration) return;
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
  const predictions = new PredictionWrites(ctx);
  try {
    const documents = await pendingDocuments(ctx, jobs, iteration, job);
    const outcome = await runDocuments(ctx, iteration, documents, 'replace', {
      signal: controller.signal,
      save: (record) => predictions.save(record),
      onSaved: async (prediction) => events.add(prediction, job.id),
      jobId: job.id,
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

/**
 * Cancels the iteration's job by compare-and-set (`cancelled`, lease dropped, predictions kept) and writes the final
 * event. The caller has already stopped local work. Null when the job was not active (nothing changed).
 */
export async function cancelJob(ctx: ServiceContext, jobs: JobContext, ref: IterationRef): Promise<IterationRecord | null> {
  const cancelled = await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (!current.job || !isActive(current.status)) return { skip: true, result: null };
    const now = ctx.now();
    const next: IterationRecord = { ...current, status: 'cancelled', finished_at: now, lease: null, updated_at: now };
    return { write: next, result: next };
  });
  const record = cancelled?.result ?? null;
  if (record) await writeFinalEvent(ctx, jobs, record, record.job!);
  return record;
}

const POLL_MS = 250;
const CANCEL_WAIT_MS = 2_000;
const EVENT_PAGE = 100;

function toEvent(record: IterationEventRecord): IterationEvent {
  if (record.type === 'document') {
    return { id: record.id, type: 'document', data: { document_id: record.document_id!, similarity: record.similarity, error: record.error } };
  }
  return { id: record.id, type: record.type, data: record.summary as unknown as IterationSummary };
}

/**
 * The iteration's events from just after `lastEventId` (from the job's start without it): each document event,
 * a `progress` event after each batch (carrying the id of the document event it follows), and the final event, after
 * which it ends. An iteration already over without `lastEventId`: its final event only. Unknown ids (a previous
 * job's) start over from the current job's first event.
 */
export async function* iterationEvents(
  ctx: ServiceContext,
  jobs: JobContext,
  iteration: IterationRecord,
  lastEventId: string | undefined,
): AsyncGenerator<IterationEvent> {
  const org = iteration.organization_id;
  const job = iteration.job;
  const summaryEvent = async (record: IterationRecord): Promise<IterationEvent> => {
    const tally = tallyOf(await ctx.storage.documents.totals(org, record.evaluation_id));
    const summary = await renderIterationSummary(ctx, record, tally);
    const type = isActive(record.status) ? 'completed' : (record.status as 'completed' | 'failed' | 'cancelled');
    return { id: finalEventId(record.job?.id ?? record.id), type, data: summary };
  };
  if (!job) {
    yield await summaryEvent(iteration);
    return;
  }
  if (!lastEventId && !isActive(iteration.status)) {
    const final = await ctx.storage.events.get(org, iteration.id, finalEventId(job.id));
    yield final ? toEvent(final.value) : await summaryEvent(iteration);
    return;
  }
  // A client that already has the final event (an EventSource reconnecting after the stream closed): nothing more.
  if (lastEventId === finalEventId(job.id)) return;
  let after = lastEventId;
  for (;;) {
    const page = await ctx.storage.events.list(org, iteration.id, { limit: EVENT_PAGE, ...(after ? { after } : {}) });
    if (!page) {
      after = undefined;
      continue;
    }
    let lastDocument: string | undefined;
    for (const record of page.items) {
      after = record.id;
      if (record.job_id !== job.id) continue;
      if (record.type !== 'document') {
        if (lastDocument) yield await progressEvent(ctx, iteration, lastDocument);
        yield toEvent(record);
        return;
      }
      lastDocument = record.id;
      yield toEvent(record);
    }
    if (lastDocument) yield await progressEvent(ctx, iteration, lastDocument);
    if (page.has_more) continue;
    // Nothing new: is the job still going? (Its record may be over without a final event after a crash.)
    const current = await ctx.storage.iterations.get(org, iteration.id);
    if (!current || current.value.job?.id !== job.id) throw new DocevalsError('not_found', `No iteration with id "${iteration.id}" exists in this organization.`);
    if (!isActive(current.value.status)) {
      const final = await ctx.storage.events.get(org, iteration.id, finalEventId(job.id));
      if (!final) {
        yield await summaryEvent(current.value);
        return;
      }
      if (after === final.value.id) return;
      continue; // the final event is there: the next page delivers it
    }
    await jobs.signals.wait(iteration.id, POLL_MS);
  }
}

async function progressEvent(ctx: ServiceContext, iteration: IterationRecord, afterId: string): Promise<IterationEvent> {
  const [totals, documents] = await Promise.all([
    ctx.storage.predictions.totals(iteration.organization_id, iteration.id),
    ctx.storage.documents.totals(iteration.organization_id, iteration.evaluation_id),
  ]);
  const succeeded = Math.round(totals.sums.succeeded ?? 0);
  const failed = Math.round(totals.sums.failed ?? 0);
  const total = documents.count;
  return { id: afterId, type: 'progress', data: { total, succeeded, failed, pending: Math.max(0, total - succeeded - failed) } };
}

/**
 * The embedded runner: FIFO, at most `maxRunningIterations` jobs at once in this process. `start()` resumes the
 * store's unfinished jobs and scans again every third of the lease, so a job whose runner died is taken over.
 *
 * @example
 * const docevals = createDocevals({ storage, jobs: { maxRunningIterations: 2 } }); // uses it by default
 * // or explicitly, e.g. to wrap it:
 * createDocevals({ storage, jobs: { runner: (work) => inProcessJobRunner(work, { maxRunningIterations: 2 }) } });
 */
export function inProcessJobRunner(
  work: JobWork,
  options: { maxRunningIterations: number; onError?: (error: unknown) => void },
): JobRunner {
  const max = Math.max(1, Math.floor(options.maxRunningIterations));
  const onError = options.onError ?? ((error: unknown) => console.error('[docevals/jobs]', error));
  const queue: IterationRef[] = [];
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let scanning: Promise<void> | undefined;
  let closed = false;
  const key = (ref: IterationRef) => `${ref.organization_id}\u0000${ref.iteration_id}`;

  function pump(): void {
    while (!closed && running.size < max && queue.length > 0) {
      const ref = queue.shift()!;
      const k = key(ref);
      if (running.has(k)) continue;
      const controller = new AbortController();
      const done = work
        .run(ref, controller.signal)
        .catch(onError)
        .finally(() => {
          running.delete(k);
          pump();
        });
      running.set(k, { controller, done });
    }
  }

  function scan(): Promise<void> {
    scanning ??= (async () => {
      try {
        for await (const ref of work.resumable()) enqueue(ref);
      } catch (error) {
        onError(error);
      } finally {
        scanning = undefined;
      }
    })();
    return scanning;
  }

  function enqueue(ref: IterationRef): void {
    if (closed) return;
    const k = key(ref);
    if (running.has(k) || queue.some((q) => key(q) === k)) return;
    queue.push(ref);
    pump();
  }

  return {
    enqueue,
    async cancel(ref) {
      const k = key(ref);
      const index = queue.findIndex((q) => key(q) === k);
      if (index >= 0) queue.splice(index, 1);
      const run = running.get(k);
      if (!run) return;
      run.controller.abort('cancelled');
      // The run stops at once (calls in flight are aborted) and writes the events of what it saved; waited for, so
      // that they come before the final event. Bounded: a document sleeping before a retry stops at its next step.
      await Promise.race([run.done, new Promise((r) => setTimeout(r, CANCEL_WAIT_MS).unref?.())]);
    },
    async start() {
      if (timer || closed) return;
      timer = setInterval(() => void scan(), Math.max(50, Math.floor(work.leaseMs / 3)));
      timer.unref?.();
      await scan();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      queue.length = 0;
      await scanning;
      const all = [...running.values()];
      for (const { controller } of all) controller.abort('closing');
      await Promise.all(all.map((r) => r.done));
    },
  };
}

/*
 * Queue mode (docs/spec/jobs.md): a queue (BullMQ workers on any machine) runs a job one document at a time. The
 * steps below are what JobWork.plan / runDocument / finish / describe call; they reuse the in-process run's steps.
 */

/** The iteration lease's owner while a queue runs the job: the queue's locks protect documents, not this lease. */
export const QUEUE_LEASE_OWNER = 'queue';
/** A queue's lease does not expire: in-process runners sharing the store never take the job over. */
const QUEUE_LEASE_EXPIRES_AT = '9999-12-31T23:59:59.999Z';

const refOfRecord = (iteration: IterationRecord): IterationRef => ({
  organization_id: iteration.organization_id,
  evaluation_id: iteration.evaluation_id,
  iteration_id: iteration.id,
});

/** {@link JobWork.describe}. */
export async function describeJob(ctx: ServiceContext, ref: IterationRef) {
  const found = await ctx.storage.iterations.get(ref.organization_id, ref.iteration_id);
  const iteration = found?.value;
  if (!iteration?.job) return null;
  return { job_id: iteration.job.id, status: iteration.status, model: iteration.inference_settings.model };
}

/** {@link JobWork.plan}. */
export async function planQueuedJob(ctx: ServiceContext, jobs: JobContext, ref: IterationRef): Promise<JobPlan | null> {
  const taken = await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (!current.job || !isActive(current.status)) return { skip: true, result: null };
    if (current.lease?.owner === QUEUE_LEASE_OWNER && current.status === 'running') return { skip: true, result: current };
    if (leaseLive(current)) return { skip: true, result: null };
    const now = ctx.now();
    const next: IterationRecord = {
      ...current,
      status: 'running',
      started_at: current.status === 'queued' || !current.started_at ? now : current.started_at,
      lease: { owner: QUEUE_LEASE_OWNER, expires_at: QUEUE_LEASE_EXPIRES_AT },
      updated_at: now,
    };
    return { write: next, result: next };
  });
  const iteration = taken?.result;
  if (!iteration) return null;
  const job = iteration.job!;
  const placed = { positions: [] as number[], selected: 0 };
  const documents = await pendingDocuments(ctx, jobs, iteration, job, placed);
  return {
    job_id: job.id,
    model: iteration.inference_settings.model,
    document_ids: documents.map((d) => d.id),
    document_positions: placed.positions,
    selected: placed.selected,
  };
}

const skipped = (error: string): DocumentOutcome => ({ status: 'skipped', error });
const outcomeOf = (prediction: PredictionRecord): DocumentOutcome => ({
  status: prediction.status === 'succeeded' ? 'succeeded' : 'failed',
  error: prediction.status === 'failed' ? String(prediction.metadata?.error ?? 'the extraction failed') : null,
});

/** {@link JobWork.runDocument}. */
export async function runQueuedDocument(
  ctx: ServiceContext,
  jobs: JobContext,
  ref: IterationRef,
  jobId: string,
  documentId: string,
  signal: AbortSignal,
): Promise<DocumentOutcome> {
  return (await runQueuedDocuments(ctx, jobs, ref, jobId, [documentId], signal))[0]!;
}

/** {@link JobWork.runDocuments}. */
export async function runQueuedDocuments(
  ctx: ServiceContext,
  jobs: JobContext,
  ref: IterationRef,
  jobId: string,
  documentIds: readonly string[],
  signal: AbortSignal,
  hooks: QueuedDocumentHooks = {},
): Promise<DocumentOutcome[]> {
  const org = ref.organization_id;
  // One round trip for the reads of the whole batch: the common case (documents to run) needs them all. A document
  // edited or deleted after this read is caught when its prediction is saved (runDocuments settles it).
  const [found, previous, stored] = await Promise.all([
    ctx.storage.iterations.get(org, ref.iteration_id),
    ctx.storage.predictions.getMany(org, ref.iteration_id, documentIds),
    ctx.storage.documents.getMany(org, ref.evaluation_id, documentIds),
  ]);
  const iteration = found?.value;
  // A re-run's documents this job already wrote: whether their events were written, in one read for the batch.
  const rerun = documentIds.filter((_, i) => previous[i]?.value.job_id === jobId);
  const eventWritten = new Set<string>();
  if (iteration && rerun.length > 0) {
    const stored = await ctx.storage.events.getMany(org, iteration.id, rerun.map((id) => documentEventId(jobId, id)));
    rerun.forEach((id, k) => void (stored[k] && eventWritten.add(id)));
  }
  const outcomes: DocumentOutcome[] = new Array<DocumentOutcome>(documentIds.length);
  const done = async (i: number, outcome: DocumentOutcome) => {
    outcomes[i] = outcome;
    await hooks.afterDocument?.(documentIds[i]!, outcome);
  };
  // A document's save goes on beside the next document's call: one call at a time, but no wait for the writes.
  const saving: Array<Promise<void>> = [];
  const events = new EventBatch(ctx, jobs, ref.iteration_id, QUEUE_EVENT_DELAY_MS);
  let stopped: { error: unknown } | null = null;
  try {
    for (const [i, documentId] of documentIds.entries()) {
      if (!iteration || iteration.job?.id !== jobId || iteration.status !== 'running') {
        await done(i, skipped('the job is not running'));
        continue;
      }
      const written = previous[i]?.value;
      if (written && written.job_id === jobId) {
        // Written by this job before (a re-run after a crash): not called again; its event, if the crash lost it.
        if (!eventWritten.has(documentId)) events.add(written, jobId);
        await done(i, outcomeOf(written));
        continue;
      }
      const document = stored[i]?.value;
      if (!document) {
        await done(i, skipped('the document was deleted'));
        continue;
      }
      if (signal.aborted || (hooks.beforeCall && !(await hooks.beforeCall(documentId)))) {
        await done(i, skipped('cancelled'));
        continue;
      }
      let saved: PredictionRecord | undefined;
      let extracted!: () => void;
      const callOver = new Promise<void>((resolve) => (extracted = resolve));
      const run = runDocuments(ctx, iteration, [document], 'replace', {
        signal,
        jobId,
        onExtracted: () => extracted(),
        onSaved: async (prediction) => {
          saved = prediction;
          events.add(prediction, jobId);
        },
      }).then(() => done(i, saved ? outcomeOf(saved) : skipped('cancelled')));
      run.catch(() => undefined); // awaited below
      saving.push(run);
      await Promise.race([callOver, run]);
    }
  } catch (error) {
    stopped = { error };
  }
  // Every save ends before the batch does; the first error (the loop's, else a save's) is the batch's.
  const failed = (await Promise.allSettled(saving)).find((e): e is PromiseRejectedResult => e.status === 'rejected');
  const written = events.flush();
  written.catch(() => undefined);
  if (stopped) throw stopped.error;
  if (failed) throw failed.reason;
  await written;
  return outcomes;
}

/** The first failed prediction's error: an iteration where every document failed reports it. */
async function firstStoredError(ctx: ServiceContext, ref: IterationRef): Promise<RunOutcome> {
  let after: string | undefined;
  for (;;) {
    const page = await ctx.storage.predictions.list(ref.organization_id, ref.iteration_id, { limit: READ_PAGE, ...(after ? { after } : {}) });
    if (!page) return { firstError: null };
    const failed = page.items.find((p) => p.status === 'failed');
    if (failed) return { firstError: String(failed.metadata?.error ?? 'the extraction failed') };
    if (!page.has_more || page.items.length === 0) return { firstError: null };
    after = page.items[page.items.length - 1]!.id;
  }
}

/** {@link JobWork.finish}. */
export async function finishQueuedJob(ctx: ServiceContext, jobs: JobContext, ref: IterationRef, jobId: string): Promise<boolean> {
  const iteration = (await ctx.storage.iterations.get(ref.organization_id, ref.iteration_id))?.value;
  if (!iteration?.job || iteration.job.id !== jobId) return false;
  return finishJob(ctx, jobs, refOfRecord(iteration), iteration.job, () => firstStoredError(ctx, ref), QUEUE_LEASE_OWNER);
}
