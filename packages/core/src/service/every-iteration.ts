import pLimit from 'p-limit';
import type { EvaluationRecord } from '../storage.js';
import type { ServiceContext } from './context.js';
import { incarnationOf } from './ids.js';
import { withCurrentMetrics } from './metric-cache.js';
import { retryCompareAndSet } from './update-record.js';

/** How many iterations a change to one document writes at once. */
const ITERATION_WRITE_CONCURRENCY = 8;

/**
 * Runs `write` once per iteration of the evaluation, a bounded number at once: the one loop behind every change of
 * one document that every iteration must follow (an annotation edit, a document delete). O(iterations) small writes.
 */
export async function forEachIteration(
  ctx: ServiceContext,
  evaluation: EvaluationRecord,
  write: (iterationId: string) => Promise<unknown>,
): Promise<void> {
  const limit = pLimit(ITERATION_WRITE_CONCURRENCY);
  await Promise.all(evaluation.iteration_ids.map((iterationId) => limit(() => write(iterationId))));
}

/**
 * Brings one document's prediction in one iteration in line with the document as stored now, by compare-and-set on
 * the prediction record (its totals move with it):
 * - the document is gone, or was deleted and added again since the prediction was made (another incarnation of its
 *   revision): the prediction is removed, so a list never shows a document the evaluation no longer holds, nor an
 *   old prediction for a document added anew (issue 13, L2);
 * - its annotation changed since the metrics were computed: metrics and totals are recomputed.
 * Several refreshes of one document may run at once in any order: each reads the document inside its loop, so the
 * last write always describes the latest annotation.
 */
export async function refreshPrediction(
  ctx: ServiceContext,
  organizationId: string,
  evaluationId: string,
  iterationId: string,
  documentId: string,
): Promise<void> {
  await retryCompareAndSet(`prediction ${documentId}`, async () => {
    const [prediction, document] = await Promise.all([
      ctx.storage.predictions.get(organizationId, iterationId, documentId),
      ctx.storage.documents.get(organizationId, evaluationId, documentId),
    ]);
    if (!prediction) return true;
    const cached = prediction.value.metrics.annotation_revision;
    if (!document || incarnationOf(document.value.revision) !== incarnationOf(cached)) {
      return (await ctx.storage.predictions.delete(organizationId, iterationId, documentId, prediction.version)) || undefined;
    }
    if (cached === document.value.revision) return true;
    const next = withCurrentMetrics(prediction.value, document.value, ctx.now());
    return (await ctx.storage.predictions.put(next, prediction.version)) ? true : undefined;
  });
}
