import { useQueries, type QueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { pageCursors, pagedOptions, readAllPages, readPagesAt, useAllPages } from './paged.js';
import { useTRPC, useTRPCClient, type RouterOutputs } from './trpc.js';

type TRPCOptions = ReturnType<typeof useTRPC>;
type TRPCClient = ReturnType<typeof useTRPCClient>;

/** Predictions per page when a field's scores are read. */
const FIELD_PAGE = 1000;

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

/** Counts as people read them ("10,000"): one formatter, made once (`toLocaleString` makes one per call). */
const COUNT = new Intl.NumberFormat('en');

/** "1 iteration", "3 iterations". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${COUNT.format(count)} ${count === 1 ? one : many}`;
}

type MatrixPage = RouterOutputs['evals']['matrix'];

/** The matrix's data from its pages (`evals.matrix`, in the evaluation's document order). */
export function matrixData(pages: readonly MatrixPage[]): MatrixData {
  const documents: MatrixData['documents'] = [];
  const similarities: MatrixData['similarities'] = new Map();
  const outcomes: MatrixData['outcomes'] = new Map();
  const columns: MatrixData['iterations'] = (pages.at(-1)?.iterations ?? []).map(({ id, name, model }) => ({ id, name, model }));
  for (const iteration of columns) {
    similarities.set(iteration.id, new Map());
    outcomes.set(iteration.id, new Map());
  }
  for (const page of pages) {
    // A page's columns by id: an iteration added between two pages' reads is pending in the earlier ones.
    const index = new Map(page.iterations.map((iteration, column) => [iteration.id, column]));
    for (const row of page.data) {
      documents.push({ id: row.document_id, filename: row.filename, labeled: row.labeled });
      for (const iteration of columns) {
        const column = index.get(iteration.id);
        const status = column === undefined ? 'pending' : (row.statuses[column] ?? 'pending');
        if (status === 'pending') continue;
        outcomes.get(iteration.id)!.set(row.document_id, status);
        similarities.get(iteration.id)!.set(row.document_id, status === 'failed' ? null : (row.similarities[column!] ?? null));
      }
    }
  }
  return { documents, iterations: columns, similarities, outcomes };
}

/** The matrix's first page: small, so that the grid shows its first rows while the next pages (1,000 each) are read. */
export const MATRIX_FIRST_PAGE = 200;

/**
 * The options of the matrix's query: a first page of `MATRIX_FIRST_PAGE` documents, then pages of 1,000, under
 * tRPC's key (`trpc.evals.pathKey()` reads it again: a run's start and end, an edit). `prefetchEvaluation` reads its
 * first page with them before the evaluation page's code has arrived.
 */
export function matrixOptions(trpc: TRPCOptions, client: TRPCClient, evaluationId: string) {
  const input = { evaluation_id: evaluationId, limit: 1000 };
  return pagedOptions(trpc.evals.matrix.queryKey(input), (after) => client.evals.matrix.query(after ? { ...input, after } : { ...input, limit: MATRIX_FIRST_PAGE }));
}

/**
 * The matrix of an evaluation (`evals.matrix`, every document's similarity and outcome in every iteration; see
 * `matrixOptions`). Shared by the matrix, the charts, the compare view and the document page: one key, read once.
 * `data` is the whole matrix, once its last page has arrived; `partial` the pages read so far (the grid shows them
 * while the rest is read: an evaluation of 10,000 documents takes eleven pages, one after the other).
 */
export function useMatrix(evaluationId: string) {
  const pages = useAllPages(matrixOptions(useTRPC(), useTRPCClient(), evaluationId));
  const read = pages.data?.pages;
  const partial = useMemo(() => (read ? matrixData(read) : undefined), [read]);
  const data = pages.complete ? partial : undefined;
  return { data, partial, error: pages.error, isPending: data === undefined && !pages.error };
}

/**
 * What the evaluation page reads first (its summary, leaderboard and the matrix's first page), asked for as soon
 * as the route is known: in one batch, while the page's code (a chunk of its own) is still on its way.
 */
export function prefetchEvaluation(queryClient: QueryClient, trpc: TRPCOptions, client: TRPCClient, evaluationId: string) {
  const ref = { evaluation_id: evaluationId };
  void queryClient.prefetchQuery(trpc.evals.getSummary.queryOptions(ref));
  void queryClient.prefetchQuery(trpc.evals.leaderboard.queryOptions(ref));
  void queryClient.prefetchInfiniteQuery({ ...matrixOptions(trpc, client, evaluationId), pages: 1 });
}

/** The ids of the documents that failed in an iteration, from the matrix's outcomes. */
export function failedDocuments(matrix: MatrixData | undefined, iterationId: string): string[] {
  const outcomes = matrix?.outcomes.get(iterationId);
  return outcomes ? [...outcomes].filter(([, outcome]) => outcome === 'failed').map(([id]) => id) : [];
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
 * documents behind a field. Not read while `field` is empty. With `documentIds` (the matrix's documents, in the
 * evaluation's order, which is the predictions' order too), every page of every iteration is asked for at once
 * (`pageCursors`): at 10,000 documents, ten pages per iteration in one go instead of ten round trips in a row;
 * `null`: not known yet (the matrix is still being read), the read waits for them; left out: page after page.
 */
export function useFieldScores(evaluationId: string, iterationIds: readonly string[], field: string, documentIds?: readonly string[] | null) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const cursors = useMemo(() => (documentIds ? pageCursors(documentIds, FIELD_PAGE) : undefined), [documentIds]);
  const results = useQueries({
    queries: iterationIds.map((iterationId) => {
      const input = { evaluation_id: evaluationId, iteration_id: iterationId, limit: FIELD_PAGE };
      const fetchPage = (after: string | undefined) => client.evals.iterations.predictions.query({ ...input, ...(after ? { after } : {}) });
      return {
        queryKey: trpc.evals.iterations.predictions.queryKey(input),
        enabled: field !== '' && documentIds !== null,
        staleTime: 60_000,
        queryFn: () => (cursors ? readPagesAt(cursors, fetchPage) : readAllPages(fetchPage)),
      };
    }),
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
      for (const page of results[i]?.data?.pages ?? []) {
        for (const prediction of page.data) if (prediction.status === 'succeeded') byDocument.set(prediction.document_id, fieldScore(prediction.metrics.flat_similarities, field));
      }
      out.set(iterationId, byDocument);
    });
    return out;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `stamp` and `ids` stand for `results` and `iterationIds`
  }, [field, stamp, ids]);
  return { scores, pending, error };
}
