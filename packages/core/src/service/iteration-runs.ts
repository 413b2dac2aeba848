import { asError, DocevalsError, notFound } from '../errors.js';
import type { Iteration, IterationSummary } from '../schemas/index.js';
import type { IterationJob, IterationRecord } from '../storage.js';
import { ATTR, inSpan, SEMCONV, SPAN } from '../telemetry/index.js';
import type { OperationContext } from './context.js';
import { restoreIteration } from './iteration-steps.js';
import { assertBelowCap, isActive, iterationEvents, newJobId, registerJob, type IterationRef } from './jobs/index.js';
import { readAllDocuments, requireIteration } from './reads.js';
import { documentTally, renderIteration, renderIterationSummary } from './render.js';
import { updateRecord } from './update-record.js';

export const refOf = (iteration: IterationRecord): IterationRef => ({
  organization_id: iteration.organization_id,
  evaluation_id: iteration.evaluation_id,
  iteration_id: iteration.id,
});

/**
 * Hands the job to the runner. Background: answers with the summary at once. Otherwise waits for the job's final
 * event and answers the whole iteration; every document failed is a 502 naming the kept iteration.
 */
export function startJob(ctx: OperationContext, record: IterationRecord, background: boolean): Promise<Iteration | IterationSummary> {
  // The iteration's span: where it was started. Its documents are its children wherever they run (a queue carries
  // the trace context to the workers); a background start ends it once the job is handed over.
  const attributes = {
    [ATTR.organization]: record.organization_id,
    [ATTR.evaluation]: record.evaluation_id,
    [ATTR.iteration]: record.id,
    [ATTR.job]: record.job?.id ?? '',
    [ATTR.background]: background,
    [SEMCONV.genAiRequestModel]: record.inference_settings.model,
  };
  return inSpan(SPAN.iteration, { attributes }, () => runJob(ctx, record, background));
}

async function runJob(ctx: OperationContext, record: IterationRecord, background: boolean): Promise<Iteration | IterationSummary> {
  const ref = refOf(record);
  const job = record.job!;
  if (background) {
    await ctx.jobRunner.enqueue(ref);
    const current = (await ctx.storage.iterations.get(record.organization_id, record.id))?.value ?? record;
    return renderIterationSummary(ctx, current, documentTally(ctx, { organization_id: record.organization_id, id: record.evaluation_id }));
  }
  const events = iterationEvents(ctx, ctx.jobs, record, undefined);
  const waiter: { error?: unknown } = {};
  ctx.jobs.waiting.set(job.id, waiter);
  try {
    await ctx.jobRunner.enqueue(ref);
    for await (const event of events) if (event.type !== 'document' && event.type !== 'progress') break;
  } finally {
    ctx.jobs.waiting.delete(job.id);
  }
  if (waiter.error !== undefined) throw asError(waiter.error);
  const { evaluation, iteration } = await requireIteration(ctx, record.organization_id, record.evaluation_id, record.id);
  if (iteration.job?.id === job.id && iteration.status === 'failed') {
    throw new DocevalsError('extractor_error', `The iteration ${iteration.id} failed: ${iteration.error ?? 'every document failed'}`, {
      iteration_id: iteration.id,
    });
  }
  return renderIteration(ctx, iteration, await readAllDocuments(ctx, record.organization_id, evaluation.id));
}

/**
 * Queues a new job on an existing iteration (a re-run, or `update`'s run under `changes`): one compare-and-set
 * writes the job and the changes together, then the job takes its place in the organization's cap. Refused there,
 * the iteration goes back to the record that compare-and-set replaced (not the one read earlier in the request,
 * which a job ending meanwhile would have made stale).
 */
export async function queueRun(
  ctx: OperationContext,
  iteration: IterationRecord,
  selection: IterationJob['selection'],
  background: boolean,
  changes: Partial<IterationRecord> = {},
): Promise<Iteration | IterationSummary> {
  const organizationId = iteration.organization_id;
  await assertBelowCap(ctx, organizationId);
  const job = { id: newJobId(), selection, started_at: ctx.now() };
  const queued = await updateRecord(ctx.storage.iterations, organizationId, iteration.id, (current) => {
    if (isActive(current.status) && current.job) {
      throw new DocevalsError('conflict', `The iteration ${current.id} is ${current.status}: cancel it or wait until it ends.`);
    }
    const next: IterationRecord = { ...current, ...changes, status: 'queued', job, started_at: null, finished_at: null, error: null, lease: null, updated_at: ctx.now() };
    return { write: next, result: { before: current, next } };
  });
  if (!queued) throw notFound('iteration', iteration.id);
  try {
    await registerJob(ctx, queued.result.next, job);
  } catch (error) {
    await restoreIteration(ctx, queued.result.before, job.id, Object.keys(changes) as Array<keyof IterationRecord>).catch(() => undefined);
    throw error;
  }
  // The previous job's events go: a stream of this iteration follows the new job.
  await ctx.storage.events.deleteAll(organizationId, iteration.id);
  return startJob(ctx, queued.result.next, background);
}
