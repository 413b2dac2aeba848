import type { JsonObject } from '../../json/assert-json.js';
import type { IterationStatus } from '../../storage.js';

/*
 * The job contract (docs/spec/jobs.md): what the service gives a runner ({@link JobWork}) and what a runner gives the
 * service ({@link JobRunner}). It sits at the foot of jobs/: it imports no other file of the service, so a runner
 * (the in-process one, a queue's) depends on it and nothing here depends on a runner.
 *
 * Iterations as durable jobs: the job's state is in the Storage. The iteration record names the job (`job`), its
 * status and lease; each prediction names the job that wrote it; the `events` child collection holds the job's
 * events in order; the `jobs` collection lists active jobs for runners to find after a restart.
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
  /**
   * Before a call starts: false skips the document (`skipped`, error `cancelled`). `next`: the document the batch
   * calls after this one, when it has one (a queue may get ready for it while this call runs).
   */
  beforeCall?(documentId: string, next?: string): Promise<boolean>;
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
  /**
   * Iterations of one organization running at once in this process; more wait in FIFO order. Organizations run side
   * by side: their extractor calls share `maxRunningIterations` x `extraction.concurrency` slots, taken round-robin
   * across the organizations that wait for one (docs/spec/jobs.md, Fair scheduling). @default 4
   */
  maxRunningIterations: number;
  /**
   * Queued and running iterations one organization may have at once (every server of the store together): one more
   * is refused with a 429 `rate_limited` before anything is written. @default 20
   */
  maxIterationsPerOrganization: number;
  /**
   * Lease duration; renewed every third of it, and every runner looks for expired leases every third of it too: a
   * dead runner's job is taken over within 4/3 of it (8 s by default). A runner whose event loop stalls longer than
   * it loses the job to another runner sharing the store (the documents in flight then run twice). @default 6_000
   */
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
  maxIterationsPerOrganization: 20,
  leaseMs: 6_000,
  resume: true,
});

/** The iteration lease's owner while a queue runs the job: the queue's locks protect documents, not this lease. */
export const QUEUE_LEASE_OWNER = 'queue';
