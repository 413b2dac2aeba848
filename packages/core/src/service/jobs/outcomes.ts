import type { DocumentRecord, IterationJob, IterationRecord, JobSelection, PredictionRecord } from '../../storage.js';
import type { ServiceContext } from '../context.js';
import type { RunOutcome } from '../iteration-steps.js';
import { predictionsFor, READ_PAGE, readAllDocuments } from '../reads.js';
import { updateRecord } from '../update-record.js';
import { ATTR, SEMCONV, SPAN, startSpan } from '../../telemetry/index.js';
import type { IterationRef } from './contract.js';
import { writeDocumentEvent, writeFinalEvent } from './events.js';
import { documentEventId, isActive, type JobContext } from './job-context.js';

/** A job's documents still to run, and the compare-and-sets that end it: finished, failed, cancelled. */

/**
 * The `docevals iteration end` span of an outcome just recorded (`docevals.iteration.status`: completed, failed,
 * cancelled): opened and ended at once by the process whose compare-and-set wrote the outcome, so each outcome is
 * traced (and counted by the server's metrics) once, wherever the job ran.
 */
function traceOutcome(iteration: IterationRecord): void {
  startSpan(SPAN.iterationEnd, {
    attributes: {
      [ATTR.organization]: iteration.organization_id,
      [ATTR.evaluation]: iteration.evaluation_id,
      [ATTR.iteration]: iteration.id,
      [ATTR.job]: iteration.job?.id ?? '',
      [ATTR.iterationStatus]: iteration.status,
      [SEMCONV.genAiRequestModel]: iteration.inference_settings.model,
    },
  }).end();
}

/**
 * The documents the job still has to run: those of its selection whose prediction was not written by this job
 * (`missing`: and that have no successful prediction). Documents the job already wrote get their event if a crash
 * came between the prediction and its event. `fresh`: no runner has taken the job before (it was `queued`), so it
 * wrote nothing: unless the selection is `missing`, no prediction is read (the run starts sooner).
 */
export async function pendingDocuments(
  ctx: ServiceContext,
  jobs: JobContext,
  iteration: IterationRecord,
  job: IterationJob,
  placed?: { positions: number[]; selected: number },
  fresh = false,
): Promise<DocumentRecord[]> {
  let documents = await readAllDocuments(ctx, iteration.organization_id, iteration.evaluation_id);
  const selection: JobSelection = job.selection;
  if (typeof selection === 'object') {
    const wanted = new Set(selection.document_ids);
    documents = documents.filter((d) => wanted.has(d.id));
  }
  if (placed) placed.selected = documents.length;
  if (fresh && selection !== 'missing') {
    // One at a time: a spread of an evaluation's every position could pass the engine's argument limit.
    if (placed) for (let i = 0; i < documents.length; i++) placed.positions.push(i);
    return documents;
  }
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
export async function finishJob(
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
  traceOutcome(finished.result);
  await writeFinalEvent(ctx, jobs, finished.result, job);
  return true;
}

/** A run that stopped on an error (a store failing): the iteration is `failed` with it; predictions are kept. */
export async function failJob(ctx: ServiceContext, jobs: JobContext, ref: IterationRef, job: IterationJob, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const failed = await updateRecord(ctx.storage.iterations, ref.organization_id, ref.iteration_id, (current) => {
    if (current.job?.id !== job.id || !isActive(current.status)) return { skip: true, result: null };
    const now = ctx.now();
    const next: IterationRecord = { ...current, status: 'failed', error: message, finished_at: now, lease: null, updated_at: now };
    return { write: next, result: next };
  });
  if (!failed?.result) return;
  traceOutcome(failed.result);
  await writeFinalEvent(ctx, jobs, failed.result, job);
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
  if (record) traceOutcome(record);
  if (record) await writeFinalEvent(ctx, jobs, record, record.job!);
  return record;
}
