import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import type { SortingState } from '@tanstack/react-table';
import { Link } from 'react-router';
import { formatSimilarity, similarityColour } from '../similarity-colour.js';
import { byText, createAppColumnHelper, figureColumn, useAppTable } from '../table.js';
import { ariaSort, SortButton } from './DataTable.js';

export interface MatrixColumn {
  id: string;
  label: string;
}
export interface MatrixRow {
  id: string;
  filename: string;
  /** Similarity per column id; missing or null: no figure (see `outcomes`). */
  similarities: Record<string, number | null | undefined>;
  /** Outcome per column id: a failed document's cell says "failed", a pending one's "–". */
  outcomes?: Record<string, 'succeeded' | 'failed' | 'pending'>;
}

const ROW_HEIGHT = 30;

/** The document column's id; an iteration's column is `iterationColumnId(iteration id)`. */
export const DOCUMENT_COLUMN = 'document';
export const iterationColumnId = (id: string) => `iteration:${id}`;

const helper = createAppColumnHelper<MatrixRow>();

/**
 * The matrix's columns: the document (sorted by filename), then one per iteration, its value the similarity or
 * `undefined` for no prediction (`null` too: `figureColumn`), sorted worst first on the first click and the
 * documents without a prediction last in either direction.
 */
export function matrixColumns(evaluationId: string, columns: readonly MatrixColumn[]) {
  return helper.columns([
    helper.accessor('filename', {
      id: DOCUMENT_COLUMN,
      header: 'Document',
      sortFn: byText,
      sortDescFirst: false,
      cell: ({ row }) => (
        <Link to={`/evals/${encodeURIComponent(evaluationId)}/documents/${encodeURIComponent(row.original.id)}`}>{row.original.filename}</Link>
      ),
    }),
    ...columns.map((column) =>
      figureColumn<MatrixRow>({ id: iterationColumnId(column.id), header: column.label, value: (row) => row.similarities[column.id], first: 'asc', format: formatSimilarity }),
    ),
  ]);
}

/**
 * Documents × iterations, one similarity per cell, number and colour; rows are virtualized (only the visible ones
 * are in the page), so thousands of documents scroll smoothly. A `grid` with `aria-rowcount` for screen readers.
 * A react-table table (`useAppTable`): a header's button toggles the table's sorting state (`matrixColumns`), and the
 * virtualizer lays out the sorted row model's rows.
 */
export function Matrix(props: {
  evaluationId: string;
  columns: MatrixColumn[];
  rows: MatrixRow[];
  /** Controlled sorting (the page keeps it in the URL); uncontrolled when absent. */
  sorting?: SortingState;
  onSortingChange?: (sorting: SortingState) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const columns = useMemo(() => matrixColumns(props.evaluationId, props.columns), [props.evaluationId, props.columns]);
  const labels = useMemo(() => new Map(props.columns.map((column) => [iterationColumnId(column.id), column.label])), [props.columns]);
  const { sorting, onSortingChange } = props;
  const table = useAppTable({
    columns,
    data: props.rows,
    getRowId: (row) => row.id,
    ...(sorting && onSortingChange
      ? { state: { sorting }, onSortingChange: (updater: SortingState | ((old: SortingState) => SortingState)) => onSortingChange(typeof updater === 'function' ? updater(sorting) : updater) }
      : {}),
  });
  const rows = table.getRowModel().rows;
  // eslint-disable-next-line react-hooks/incompatible-library -- read on every render, never memoized: what it warns of
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const width = `calc(16rem + ${props.columns.length} * 7rem)`;
  const headers = table.getHeaderGroups()[0]!.headers;
  return (
    <div className="matrix" ref={scroller} role="grid" aria-label="Matrix" aria-rowcount={rows.length + 1} aria-colcount={props.columns.length + 1}>
      <div role="row" className="header-row" aria-rowindex={1} style={{ width }}>
        {headers.map((header) => {
          const label = labels.get(header.column.id);
          return (
            <span role="columnheader" key={header.id} title={label} aria-sort={ariaSort(header.column)}>
              <SortButton column={header.column} label={label === undefined ? undefined : `Sort by ${label}`}>
                <table.FlexRender header={header} />
              </SortButton>
            </span>
          );
        })}
      </div>
      <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative', width }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          const [documentCell, ...cells] = row.getAllCells();
          return (
            <div role="row" key={row.id} aria-rowindex={item.index + 2} style={{ position: 'absolute', top: 0, transform: `translateY(${item.start}px)`, height: ROW_HEIGHT, width }}>
              <span role="rowheader" title={row.original.filename}>
                <table.FlexRender cell={documentCell!} />
              </span>
              {cells.map((cell) => {
                const value = cell.getValue<number | undefined>();
                const failed = row.original.outcomes?.[cell.column.id.slice('iteration:'.length)] === 'failed';
                const text = failed ? 'failed' : value === undefined ? 'no prediction' : formatSimilarity(value);
                const label = `${row.original.filename} × ${labels.get(cell.column.id)}: ${text}`;
                return (
                  <span role="gridcell" key={cell.id} aria-label={label} className={failed ? 'failed' : undefined} style={failed ? undefined : { background: similarityColour(value) }}>
                    {failed ? 'failed' : <table.FlexRender cell={cell} />}
                  </span>
                );
              })}
            </div>
          );
        })}
      </div>
    </div>
  );
}
