import { DocevalsError } from '../../errors.js';
import type { IterationEvent, IterationSummary } from '../../schemas/index.js';
import type { IterationEventRecord, IterationRecord } from '../../storage.js';
import type { ServiceContext } from '../context.js';
import { renderIterationSummary, tallyOf } from '../render.js';
import { finalEventId, isActive, type JobContext } from './job-context.js';

/** An iteration's events as a stream (docs/spec/jobs.md, Events): from the store, woken by this process's writes. */

const POLL_MS = 250;
const EVENT_PAGE = 100;

function toEvent(record: IterationEventRecord): IterationEvent {
  if (record.type === 'document') {
    return { id: record.id, type: 'document', data: { document_id: record.document_id!, similarity: record.similarity, error: record.error } };
  }
  // A final event's summary is the IterationSummary rendered when the job ended (events.ts), stored as JSON.
  return { id: record.id, type: record.type, data: record.summary as IterationSummary };
}

/**
 * The iteration's events from just after `lastEventId` (from the job's start without it): each document event,
 * a `progress` event after each batch (carrying the id of the document event it follows), and the final event, after
 * which it ends. An iteration already over without `lastEventId`: its final event only. Unknown ids (a previous
 * job's) start over from the current job's first event. `signal` stops it at once: no store read after it aborts
 * (one under way finishes), even while it waits for the next event.
 */
export async function* iterationEvents(
  ctx: ServiceContext,
  jobs: JobContext,
  iteration: IterationRecord,
  lastEventId: string | undefined,
  signal?: AbortSignal,
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
    if (signal?.aborted) return;
    const page = await ctx.storage.events.list(org, iteration.id, { limit: EVENT_PAGE, ...(after ? { after } : {}) });
    if (signal?.aborted) return;
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
    if (signal?.aborted) return;
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
    await jobs.signals.wait(iteration.id, POLL_MS, signal);
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
