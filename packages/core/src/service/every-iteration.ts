import pLimit from 'p-limit';
import type { DocumentRecord, EvaluationRecord, PredictionRecord } from '../storage.js';
import type { ServiceContext } from './context.js';
import { incarnationOf } from './ids.js';
import { withCurrentMetrics } from './metric-cache.js';
import { retryCompareAndSet, updateChildren } from './update-record.js';

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
    const step = refreshStep(prediction.value, document?.value ?? null, ctx.now());
    if (step === 'current') return true;
    if (step === 'remove') {
      return (await ctx.storage.predictions.delete(organizationId, iterationId, documentId, prediction.version)) || undefined;
    }
    return (await ctx.storage.predictions.put(step, prediction.version)) ? true : undefined;
  });
}

/**
 * What one prediction needs to describe the document as stored now (see {@link refreshPrediction}): nothing
 * (`current`), removal (the document is gone or is another incarnation), or new metrics (the record to write).
 */
function refreshStep(prediction: PredictionRecord, document: DocumentRecord | null, now: string): 'current' | 'remove' | PredictionRecord {
  const cached = prediction.metrics.annotation_revision;
  if (!document || incarnationOf(document.revision) !== incarnationOf(cached)) return 'remove';
  if (cached === document.revision) return 'current';
  return withCurrentMetrics(prediction, document, now);
}

/**
 * {@link refreshPrediction} for many documents of one iteration (a batch of a bulk edit): the predictions whose
 * metrics are stale are rewritten in one `putMany` (compare-and-set on each version, conflicts read again), the
 * documents read after the predictions in each attempt, so the last write describes the latest annotation. The rare
 * prediction to remove (document gone or added anew) goes through {@link refreshPrediction}.
 */
export async function refreshPredictions(
  ctx: ServiceContext,
  organizationId: string,
  evaluationId: string,
  iterationId: string,
  documentIds: readonly string[],
): Promise<void> {
  const steps = await updateChildren(ctx.storage.predictions, organizationId, iterationId, documentIds, async (predictions, ids) => {
    const documents = await ctx.storage.documents.getMany(organizationId, evaluationId, ids);
    const now = ctx.now();
    return predictions.map((prediction, i) => {
      if (!prediction) return { skip: true as const, result: 'current' as const };
      const step = refreshStep(prediction, documents[i]?.value ?? null, now);
      return typeof step === 'string' ? { skip: true as const, result: step } : { write: step, result: 'current' as const };
    });
  });
  const removals = documentIds.filter((_, i) => steps[i] === 'remove');
  for (const documentId of removals) await refreshPrediction(ctx, organizationId, evaluationId, iterationId, documentId);
}
