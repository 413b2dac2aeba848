import { asError } from '../../errors.js';
import type { JsonObject } from '../../json/assert-json.js';
import type { IterationEventRecord, IterationJob, IterationRecord, PredictionRecord } from '../../storage.js';
import type { ServiceContext } from '../context.js';
import { renderIterationSummary, tallyOf } from '../render.js';
import { documentEventId, finalEventId, type JobContext } from './job-context.js';
import { unregisterJob } from './registry.js';

/** The writes of a job's events: each document's, in batches, and the final one. */

/**
 * Writes the job's final event (insert-only: the first writer wins) with the iteration's summary, then drops the
 * job from the active list.
 */
export async function writeFinalEvent(ctx: ServiceContext, jobs: JobContext, iteration: IterationRecord, job: IterationJob): Promise<void> {
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
      // An IterationSummary is plain JSON; the record's field is typed as JSON to keep storage.ts free of schemas.
      summary: summary as JsonObject,
      created_at: ctx.now(),
      updated_at: ctx.now(),
    },
    0,
  );
  jobs.signals.notify(iteration.id);
  await unregisterJob(ctx, iteration.organization_id, iteration.id, job.id);
}

/** The event of one finished document. */
export function documentEvent(ctx: ServiceContext, prediction: PredictionRecord, jobId: string): IterationEventRecord {
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
export async function writeDocumentEvent(ctx: ServiceContext, jobs: JobContext, prediction: PredictionRecord, jobId: string): Promise<void> {
  await ctx.storage.events.put(documentEvent(ctx, prediction, jobId), 0);
  jobs.signals.notify(prediction.parent_id);
}

const EVENT_BATCH = 32;
const EVENT_DELAY_MS = 20;
/**
 * A queue batch runs its documents one after the other, so its events come one call apart: they are written together
 * when they come within this delay (a fast model), each on its own otherwise (a slow one: progress stays live).
 */
export const QUEUE_EVENT_DELAY_MS = 100;

/**
 * Document events written in small batches (one commit or round trip for up to {@link EVENT_BATCH} events, or what
 * came within {@link EVENT_DELAY_MS}), so that a job's progress costs one store write per document (its prediction)
 * plus a share of a batch. Events a crash leaves unwritten are written on resume from the job's predictions.
 */
export class EventBatch {
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
