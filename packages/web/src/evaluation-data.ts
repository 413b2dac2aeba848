import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import { useTRPCClient, type RouterOutputs } from './trpc.js';

type IterationSummary = RouterOutputs['evals']['getSummary']['iterations'][number];

/** A document's outcome in an iteration, as `evals.matrix` reports it. */
export type Outcome = 'succeeded' | 'failed' | 'pending';

/** The matrix of an evaluation, read page by page from `evals.matrix`. */
export interface MatrixData {
  /** In the evaluation's order; `labeled`: the document has ground truth. */
  documents: Array<{ id: string; filename: string; labeled: boolean }>;
  /** The columns, oldest first. */
  iterations: Array<{ id: string; name: string | null; model: string }>;
  /** Per iteration id, per document id: the similarity (`null` when failed; no entry when pending). */
  similarities: Map<string, Map<string, number | null>>;
  /** Per iteration id, per document id: the outcome (`pending` when no entry). */
  outcomes: Map<string, Map<string, Outcome>>;
}

/** What names an iteration: its `name` (`evals.iterations.updateMetadata`), else its model. */
export interface IterationNaming {
  id: string;
  name?: string | null;
  model?: string;
  inference_settings?: { model: string };
}

/** How an iteration is named on screen: its name when it has one, else its model and id. */
export function iterationLabel(iteration: IterationNaming): string {
  if (iteration.name) return iteration.name;
  return `${iteration.model ?? iteration.inference_settings?.model ?? '?'} (${iteration.id})`;
}

/** The address of an iteration's page. */
export function iterationPath(evaluationId: string, iterationId: string): string {
  return `/evals/${encodeURIComponent(evaluationId)}/iterations/${encodeURIComponent(iterationId)}`;
}

/** "1 iteration", "3 iterations". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}

/**
 * The matrix from `evals.matrix` (pages of 1,000 documents with their similarity and outcome in every iteration),
 * read as soon as the page opens, and again when `iterations` change after that (a run's progress, an edit).
 * Shared by the matrix and the charts: one query key, read once.
 */
export function useMatrixData(evaluationId: string, iterations: readonly IterationSummary[]) {
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const key = iterations.map((iteration) => `${iteration.id}:${iteration.updated_at}`).join(',');
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (key === '') return;
    if (seen.current !== null && seen.current !== key) {
      void queryClient.invalidateQueries({ queryKey: ['matrix', evaluationId] });
      void queryClient.invalidateQueries({ queryKey: ['field-scores', evaluationId] });
    }
    seen.current = key;
  }, [key, evaluationId, queryClient]);
  return useQuery({
    queryKey: ['matrix', evaluationId],
    queryFn: async (): Promise<MatrixData> => {
      const documents: MatrixData['documents'] = [];
      const similarities: MatrixData['similarities'] = new Map();
      const outcomes: MatrixData['outcomes'] = new Map();
      let columns: MatrixData['iterations'] = [];
      let after: string | undefined;
      for (;;) {
        const page = await client.evals.matrix.query({ evaluation_id: evaluationId, limit: 1000, ...(after ? { after } : {}) });
        columns = page.iterations.map(({ id, name, model }) => ({ id, name, model }));
        for (const iteration of columns) {
          if (!similarities.has(iteration.id)) similarities.set(iteration.id, new Map());
          if (!outcomes.has(iteration.id)) outcomes.set(iteration.id, new Map());
        }
        for (const row of page.data) {
          documents.push({ id: row.document_id, filename: row.filename, labeled: row.labeled });
          columns.forEach((iteration, column) => {
            const status = row.statuses[column] ?? 'pending';
            if (status === 'pending') return;
            outcomes.get(iteration.id)!.set(row.document_id, status);
            similarities.get(iteration.id)!.set(row.document_id, status === 'failed' ? null : (row.similarities[column] ?? null));
          });
        }
        after = page.list_metadata.after ?? undefined;
        if (!after || page.data.length === 0) break;
      }
      return { documents, iterations: columns, similarities, outcomes };
    },
  });
}

/**
 * Whether a metric path (`line_items.3.amount`) belongs to a field (`line_items.*.amount`): the same segments, a
 * `*` of the field standing for a list index of the path.
 */
export function pathInField(path: string, field: string): boolean {
  if (path === field) return true;
  const a = path.split('.');
  const b = field.split('.');
  if (a.length !== b.length) return false;
  return b.every((segment, i) => segment === a[i] || (segment === '*' && /^(0|[1-9][0-9]*)$/.test(a[i]!)));
}

/** A document's score on a field: the mean of its metric paths in that field; undefined when none is scored. */
export function fieldScore(flat: Record<string, number>, field: string): number | undefined {
  let sum = 0;
  let count = 0;
  for (const [path, score] of Object.entries(flat)) {
    if (pathInField(path, field)) {
      sum += score;
      count += 1;
    }
  }
  return count === 0 ? undefined : sum / count;
}

/**
 * Per document id, its scores on `field` in each of `iterationIds` (from `iterations.predictions`, pages of 1,000;
 * the metrics' flat similarities): what the matrix shows when narrowed to a field, and the compare view's
 * documents behind a field. Not read while `field` is empty.
 */
export function useFieldScores(evaluationId: string, iterationIds: readonly string[], field: string) {
  const client = useTRPCClient();
  const results = useQueries({
    queries: iterationIds.map((iterationId) => ({
      queryKey: ['field-scores', evaluationId, iterationId],
      enabled: field !== '',
      staleTime: 60_000,
      queryFn: async () => {
        const flat = new Map<string, Record<string, number>>();
        let after: string | undefined;
        for (;;) {
          const page = await client.evals.iterations.predictions.query({ evaluation_id: evaluationId, iteration_id: iterationId, limit: 1000, ...(after ? { after } : {}) });
          for (const prediction of page.data) if (prediction.status === 'succeeded') flat.set(prediction.document_id, prediction.metrics.flat_similarities);
          after = page.list_metadata.after ?? undefined;
          if (!after || page.data.length === 0) break;
        }
        return flat;
      },
    })),
  });
  const pending = field !== '' && results.some((result) => result.isPending);
  const error = results.find((result) => result.error)?.error ?? null;
  const stamp = results.map((result) => result.dataUpdatedAt).join(',');
  const ids = iterationIds.join(',');
  const scores = useMemo(() => {
    const out = new Map<string, Map<string, number | undefined>>();
    if (field === '') return out;
    iterationIds.forEach((iterationId, i) => {
      const byDocument = new Map<string, number | undefined>();
      for (const [documentId, flat] of results[i]?.data ?? []) byDocument.set(documentId, fieldScore(flat, field));
      out.set(iterationId, byDocument);
    });
    return out;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `stamp` and `ids` stand for `results` and `iterationIds`
  }, [field, stamp, ids]);
  return { scores, pending, error };
}
