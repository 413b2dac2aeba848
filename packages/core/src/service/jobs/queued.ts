import type { ExtractionDocument, ProviderCredentials } from '../../extractor.js';
import { readFilesAhead } from '../document-files.js';
import type { DocumentRecord, IterationRecord, PredictionRecord } from '../../storage.js';
import type { ServiceContext } from '../context.js';
import { credentialsOf, runDocuments, settleSaved, type RunOutcome } from '../iteration-steps.js';
import { READ_PAGE } from '../reads.js';
import type { DocumentOutcome, IterationRef, JobPlan, QueuedDocumentHooks } from './contract.js';
import { QUEUE_LEASE_OWNER } from './contract.js';
import { EventBatch, QUEUE_EVENT_DELAY_MS } from './events.js';
import { documentEventId, type JobContext } from './job-context.js';
import { takeQueueLease } from './leases.js';
import { finishJob, pendingDocuments } from './outcomes.js';
import { PredictionWrites } from './prediction-writes.js';

/*
 * Queue mode (docs/spec/jobs.md): a queue (BullMQ workers on any machine) runs a job one document at a time. The
 * steps below are what JobWork.plan / runDocument / finish / describe call; they reuse the in-process run's steps.
 */

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
  const taken = await takeQueueLease(ctx, ref);
  if (!taken) return null;
  const { iteration, fresh } = taken;
  const job = iteration.job!;
  const placed = { positions: [] as number[], selected: 0 };
  // A job taken from `queued` has written nothing: its documents are listed without reading predictions.
  const documents = await pendingDocuments(ctx, jobs, iteration, job, placed, fresh);
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

/** What a batch reads before its first call, in one round trip (and one more for a re-run's events). */
interface BatchReads {
  iteration: IterationRecord | undefined;
  /** Each document's prediction (any job's), in the batch's order. */
  previous: Array<PredictionRecord | undefined>;
  stored: Array<DocumentRecord | undefined>;
  /** A re-run's documents this job already wrote whose event is written too. */
  eventWritten: Set<string>;
}

async function readBatch(ctx: ServiceContext, ref: IterationRef, jobId: string, documentIds: readonly string[]): Promise<BatchReads> {
  const org = ref.organization_id;
  // The common case (documents to run) needs them all. A document edited or deleted after this read is caught when
  // its prediction is saved (the batch settles its saved documents together).
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
    const events = await ctx.storage.events.getMany(org, iteration.id, rerun.map((id) => documentEventId(jobId, id)));
    rerun.forEach((id, k) => void (events[k] && eventWritten.add(id)));
  }
  return { iteration, previous: previous.map((p) => p?.value), stored: stored.map((d) => d?.value), eventWritten };
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
  // The batch's first files are read beside its records (a document's id is its file's): a document skipped below
  // only costs its file's read.
  const load = readFilesAhead(ctx, ref.organization_id, documentIds);
  const { iteration, previous, stored, eventWritten } = await readBatch(ctx, ref, jobId, documentIds);
  const running = iteration?.job?.id === jobId && iteration.status === 'running';
  // The documents to call, in order: not written by this job before, still stored.
  const toCall = running ? stored.filter((d, i): d is DocumentRecord => d !== undefined && previous[i]?.job_id !== jobId) : [];
  const nextOf = new Map(toCall.map((d, k) => [d.id, toCall[k + 1]?.id]));
  const outcomes: DocumentOutcome[] = new Array<DocumentOutcome>(documentIds.length);
  const done = async (i: number, outcome: DocumentOutcome) => {
    outcomes[i] = outcome;
    await hooks.afterDocument?.(documentIds[i]!, outcome);
  };
  // A document's save goes on beside the next document's call: one call at a time, but no wait for the writes.
  // The saved documents are settled together (one read) once the batch's saves are over.
  const saving: Array<Promise<void>> = [];
  const saved: DocumentRecord[] = [];
  const events = new EventBatch(ctx, jobs, ref.iteration_id, QUEUE_EVENT_DELAY_MS);
  let stopped: { error: unknown } | null = null;
  // The organization's key: read (and opened) at the batch's first call, shared by the job's batches in this process.
  let credentials: Promise<ProviderCredentials | undefined> | undefined;
  try {
    for (const [i, documentId] of documentIds.entries()) {
      if (!iteration || !running) {
        await done(i, skipped('the job is not running'));
        continue;
      }
      const written = previous[i];
      if (written && written.job_id === jobId) {
        // Written by this job before (a re-run after a crash): not called again; its event, if the crash lost it.
        if (!eventWritten.has(documentId)) events.add(written, jobId);
        await done(i, outcomeOf(written));
        continue;
      }
      const document = stored[i];
      if (!document) {
        await done(i, skipped('the document was deleted'));
        continue;
      }
      if (signal.aborted || (hooks.beforeCall && !(await hooks.beforeCall(documentId, nextOf.get(documentId))))) {
        await done(i, skipped('cancelled'));
        continue;
      }
      credentials ??= jobCredentials(ctx, iteration, jobId);
      credentials.catch(() => undefined); // each document's run answers it
      const batch = { signal, events, saving, saved, credentials, load };
      await callDocument(ctx, iteration, document, jobId, batch, (outcome) => done(i, outcome));
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
  // The settle and the events' write go on side by side; both end before the batch does.
  await Promise.all([iteration ? settleSaved(ctx, iteration, saved) : undefined, written]);
  return outcomes;
}

/** How long a process reuses the key a job's batch read for the job's next batches. */
const CREDENTIALS_REUSE_MS = 10_000;
type KeysOfJobs = Map<string, { at: number; credentials: Promise<ProviderCredentials | undefined> }>;
const keysOfJobs = new WeakMap<ServiceContext, KeysOfJobs>();

/**
 * The organization's key for a job's batch: read (a store read and a decryption) by the job's first batch in this
 * process and reused by its batches that start within {@link CREDENTIALS_REUSE_MS} of that read, as the in-process
 * runner reads it once per run. A failed read (no key: a 422 for each document) is not kept.
 */
function jobCredentials(ctx: ServiceContext, iteration: IterationRecord, jobId: string): Promise<ProviderCredentials | undefined> {
  let keys = keysOfJobs.get(ctx);
  if (!keys) keysOfJobs.set(ctx, (keys = new Map() as KeysOfJobs));
  const now = performance.now();
  const name = `${iteration.organization_id}/${iteration.id}/${jobId}`;
  const kept = keys.get(name);
  if (kept && now - kept.at < CREDENTIALS_REUSE_MS) return kept.credentials;
  for (const [other, entry] of keys) if (now - entry.at >= CREDENTIALS_REUSE_MS) keys.delete(other);
  const credentials = credentialsOf(ctx, iteration);
  const own = keys;
  own.set(name, { at: now, credentials });
  credentials.catch(() => void (own.get(name)?.credentials === credentials && own.delete(name)));
  return credentials;
}

/** What the documents of one batch share while it runs. */
interface BatchRun {
  signal: AbortSignal;
  events: EventBatch;
  /** Each document's save (and its outcome's report), awaited by the batch. */
  saving: Array<Promise<void>>;
  /** The documents whose prediction is saved, settled together after the batch's last save. */
  saved: DocumentRecord[];
  credentials: Promise<ProviderCredentials | undefined>;
  /** A document's file, read ahead of its call. */
  load: (document: DocumentRecord) => Promise<ExtractionDocument>;
}

/**
 * Calls the extractor for one document and returns once the call is over (or the run failed): its save goes on,
 * pushed to `saving`, and reports its outcome to `done` when the prediction is stored.
 */
async function callDocument(
  ctx: ServiceContext,
  iteration: IterationRecord,
  document: DocumentRecord,
  jobId: string,
  batch: BatchRun,
  done: (outcome: DocumentOutcome) => Promise<void>,
): Promise<void> {
  let saved: PredictionRecord | undefined;
  let extracted!: () => void;
  const callOver = new Promise<void>((resolve) => (extracted = resolve));
  const run = runDocuments(ctx, iteration, [document], 'replace', {
    signal: batch.signal,
    jobId,
    credentials: batch.credentials,
    // Settled with the batch's other documents in one read after its last save.
    save: (prediction, stored) => saveQueued(ctx, prediction).then(() => void batch.saved.push(stored)),
    onExtracted: () => extracted(),
    load: batch.load,
    onSaved: async (prediction) => {
      saved = prediction;
      batch.events.add(prediction, jobId);
    },
  }).then(() => done(saved ? outcomeOf(saved) : skipped('cancelled')));
  run.catch(() => undefined); // awaited by the batch
  batch.saving.push(run);
  await Promise.race([callOver, run]);
}

/** Each service's group commits of queued predictions: one per iteration while any of its saves is pending. */
type IterationWrites = Map<string, { writes: PredictionWrites; pending: number }>;
const queuedWrites = new WeakMap<ServiceContext, IterationWrites>();

/**
 * Saves a queued document's prediction by group commit with the other batches of its iteration in this process (a
 * worker runs several at once): a save that finds a write under way goes with the next one, a `putMany` for them
 * all, as the in-process runner's job does. Each save still resolves only once its prediction is stored.
 */
function saveQueued(ctx: ServiceContext, record: PredictionRecord): Promise<void> {
  let byIteration = queuedWrites.get(ctx);
  if (!byIteration) queuedWrites.set(ctx, (byIteration = new Map() as IterationWrites));
  const key = `${record.organization_id}/${record.parent_id}`;
  let entry = byIteration.get(key);
  if (!entry) byIteration.set(key, (entry = { writes: new PredictionWrites(ctx), pending: 0 }));
  const own = entry;
  own.pending++;
  return own.writes.save(record).finally(() => {
    if (--own.pending === 0 && byIteration.get(key) === own) byIteration.delete(key);
  });
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
