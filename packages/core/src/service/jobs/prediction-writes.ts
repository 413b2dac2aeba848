import type { DocumentRecord, PredictionRecord } from '../../storage.js';
import type { ServiceContext } from '../context.js';

const PREDICTION_BATCH = 64;

/**
 * A job's predictions saved by group commit: a prediction that finds no write under way is written at once; those
 * finished while a write is under way are written together by the next one (`putMany`, one commit or round trip),
 * at most {@link PREDICTION_BATCH} at a time. Each `save` resolves once its prediction is stored, so nothing is
 * acknowledged (event, progress) before it is durable, and no timer adds latency: batches grow only when the store
 * is the bottleneck (lowdb's fsync), which is when they pay. With `settle`, a batch's documents are settled after its
 * write in one call (one read of them all, instead of one read per prediction) before its saves resolve.
 */
export class PredictionWrites {
  private queue: Array<{ record: PredictionRecord; document?: DocumentRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  private writing = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly settle?: (documents: DocumentRecord[]) => Promise<void>,
  ) {}

  /** Resolves once `record` is stored (and, with `settle`, `document` settled: pass it then). */
  save(record: PredictionRecord, document?: DocumentRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, document, resolve, reject });
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
        if (this.settle) await this.settle(batch.flatMap((e) => (e.document ? [e.document] : [])));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.writing = false;
  }
}
