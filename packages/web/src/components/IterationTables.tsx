import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { DataTable } from './DataTable.js';
import { formatSimilarity } from '../similarity-colour.js';
import { byText, createAppColumnHelper, figureColumn, figureSorting, NO_ROWS, useAppTable } from '../table.js';
import { iterationLabel, iterationPath } from '../evaluation-data.js';
import { errorMessage, useTRPC, type RouterOutputs } from '../trpc.js';

type LeaderboardRow = RouterOutputs['evals']['leaderboard']['rows'][number];
type FieldRow = RouterOutputs['evals']['iterations']['fields']['fields'][number];

/** A similarity as the tables write it: three decimals. */
const threeDigits = (value: number | undefined) => formatSimilarity(value, 3);

const leaderboardHelper = createAppColumnHelper<LeaderboardRow>();
/** Best first, as the server ranks them (`evals.leaderboard`'s default): the table's first order says so. */
const leaderboardOrder = { sorting: [{ id: 'mean_similarity', desc: true }] };

/**
 * The leaderboard's columns; the first names the iteration (the row's `name`, else its model and id) and opens its
 * page, the last one's "Select" button chooses `selectedId`.
 */
function leaderboardColumns(evaluationId: string, selectedId: string | null, onSelect: (iterationId: string) => void) {
  const nameOf = (row: LeaderboardRow) => iterationLabel({ id: row.iteration_id, name: row.name, model: row.model });
  return leaderboardHelper.columns([
    leaderboardHelper.accessor(nameOf, {
      id: 'iteration',
      header: 'Iteration',
      sortFn: byText,
      sortDescFirst: false,
      cell: ({ row: { original } }) => (
        <>
          <Link to={iterationPath(evaluationId, original.iteration_id)}>
            <strong>{nameOf(original)}</strong>
          </Link>{' '}
          <span className="muted">{original.model}</span>
        </>
      ),
    }),
    figureColumn<LeaderboardRow>({ id: 'mean_similarity', header: 'Mean similarity', value: (row) => row.mean_similarity, first: 'desc', format: threeDigits }),
    leaderboardHelper.display({
      id: 'bar',
      header: () => <span className="sr-only">Bar</span>,
      meta: { cellAttributes: () => ({ 'aria-hidden': true }) },
      cell: ({ row }) => (
        <div className="bar-track">
          <div className="bar" style={{ width: `${Math.round((row.original.mean_similarity ?? 0) * 100)}%` }} />
        </div>
      ),
    }),
    figureColumn<LeaderboardRow>({ id: 'aligned_mean_similarity', header: 'Aligned', value: (row) => row.aligned_mean_similarity, first: 'desc', format: threeDigits }),
    leaderboardHelper.accessor('succeeded', { header: 'Succeeded', meta: { numeric: true }, ...figureSorting('desc') }),
    leaderboardHelper.accessor('failed', { header: 'Failed', meta: { numeric: true }, ...figureSorting('desc') }),
    // Failures count 0 in the mean: coverage and the mean over succeeded documents say how the mean is made.
    figureColumn<LeaderboardRow>({ id: 'coverage', header: 'Coverage', value: (row) => row.coverage, first: 'desc', format: threeDigits }),
    figureColumn<LeaderboardRow>({ id: 'succeeded_mean_similarity', header: 'Mean (succeeded)', value: (row) => row.succeeded_mean_similarity, first: 'desc', format: threeDigits }),
    figureColumn<LeaderboardRow>({ id: 'cost', header: 'Cost', value: (row) => row.cost, first: 'desc', format: (cost) => (cost === undefined ? '–' : `$${cost.toFixed(4)}`) }),
    leaderboardHelper.display({
      id: 'selected',
      header: 'Selected',
      cell: ({ row: { original } }) => (
        <button type="button" aria-pressed={original.iteration_id === selectedId} onClick={() => onSelect(original.iteration_id)} aria-label={`${original.iteration_id === selectedId ? 'Selected' : 'Select'} ${nameOf(original)}`}>
          {original.iteration_id === selectedId ? 'Selected' : 'Select'}
        </button>
      ),
    }),
  ]);
}

/** The leaderboard: best mean first, sortable by each figure; `rows` undefined while it loads. */
export function LeaderboardTable(props: {
  evaluationId: string;
  rows: readonly LeaderboardRow[] | undefined;
  selectedId: string | null;
  onSelect: (iterationId: string) => void;
}) {
  const { evaluationId, selectedId, onSelect } = props;
  const columns = useMemo(() => leaderboardColumns(evaluationId, selectedId, onSelect), [evaluationId, selectedId, onSelect]);
  const table = useAppTable({ columns, data: props.rows ?? NO_ROWS, getRowId: (row) => row.iteration_id, initialState: leaderboardOrder });
  return <DataTable table={table} label="Leaderboard" empty={props.rows ? 'No iteration yet: run one above.' : undefined} />;
}

const fieldHelper = createAppColumnHelper<FieldRow>();
/** Worst first, as the server orders them (`iterations.fields`): the table's first order says so. */
const fieldOrder = { sorting: [{ id: 'mean_similarity', desc: false }] };
const fieldColumns = fieldHelper.columns([
  fieldHelper.accessor('field', { header: 'Field', sortFn: byText, sortDescFirst: false, cell: ({ getValue }) => <code>{getValue()}</code> }),
  figureColumn<FieldRow>({ id: 'mean_similarity', header: 'Mean similarity', value: (row) => row.mean_similarity, first: 'asc', format: threeDigits }),
  figureColumn<FieldRow>({ id: 'aligned_mean_similarity', header: 'Aligned', value: (row) => row.aligned_mean_similarity, first: 'asc', format: threeDigits }),
  fieldHelper.accessor('documents', { header: 'Documents', meta: { numeric: true }, ...figureSorting('desc') }),
  fieldHelper.accessor('exact', { header: 'Exact', meta: { numeric: true }, ...figureSorting('desc') }),
  fieldHelper.accessor('partial', { header: 'Partial', meta: { numeric: true }, ...figureSorting('desc') }),
  fieldHelper.accessor('missing', { header: 'Missing', meta: { numeric: true }, ...figureSorting('desc') }),
  fieldHelper.accessor('unexpected', { header: 'Unexpected', meta: { numeric: true }, ...figureSorting('desc') }),
  fieldHelper.accessor('failed', { header: 'Failed (as 0)', meta: { numeric: true }, ...figureSorting('desc') }),
]);

/**
 * The selected iteration's fields, worst mean first; sortable by each column. `enabled: false` holds the read back
 * (the evaluation page: until its matrix is read, the server's time goes to the matrix's pages).
 */
export function FieldsTable(props: { evaluationId: string; iterationId: string; enabled?: boolean }) {
  const trpc = useTRPC();
  const fields = useQuery({ ...trpc.evals.iterations.fields.queryOptions({ evaluation_id: props.evaluationId, iteration_id: props.iterationId }), enabled: props.enabled ?? true });
  const table = useAppTable({ columns: fieldColumns, data: fields.data?.fields ?? NO_ROWS, getRowId: (row) => row.field, initialState: fieldOrder });
  if (fields.error) return <p role="alert">{errorMessage(fields.error)}</p>;
  return <DataTable table={table} label="Fields" />;
}

