import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { formatSimilarity, similarityColour } from '../similarity-colour.js';

export interface MatrixColumn {
  id: string;
  label: string;
}
export interface MatrixRow {
  id: string;
  filename: string;
  /** Similarity per column id; missing or null: no prediction. */
  similarities: Record<string, number | null | undefined>;
}

const ROW_HEIGHT = 30;

/** What the rows are ordered by: the filename, or one iteration's similarity (no prediction sorts last). */
type SortKey = { by: 'document' } | { by: 'column'; id: string };
interface Sort {
  key: SortKey;
  direction: 'ascending' | 'descending';
}

/** The rows in the order of `sort` (a copy; stable for equal values). */
export function sortRows(rows: readonly MatrixRow[], sort: Sort | null): MatrixRow[] {
  if (!sort) return [...rows];
  const sign = sort.direction === 'ascending' ? 1 : -1;
  const key = sort.key;
  return [...rows].sort((a, b) => {
    if (key.by === 'document') return sign * a.filename.localeCompare(b.filename);
    const x = a.similarities[key.id];
    const y = b.similarities[key.id];
    const missingX = x === null || x === undefined;
    const missingY = y === null || y === undefined;
    if (missingX || missingY) return missingX === missingY ? 0 : missingX ? 1 : -1;
    return sign * (x - y);
  });
}

/**
 * Documents × iterations, one similarity per cell, number and colour; rows are virtualized (only the visible ones
 * are in the page), so thousands of documents scroll smoothly. A `grid` with `aria-rowcount` for screen readers.
 */
export function Matrix(props: { evaluationId: string; columns: MatrixColumn[]; rows: MatrixRow[] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [sort, setSort] = useState<Sort | null>(null);
  const rows = useMemo(() => sortRows(props.rows, sort), [props.rows, sort]);
  const same = (a: SortKey, b: SortKey) => a.by === b.by && (a.by === 'document' || (b.by === 'column' && a.id === b.id));
  /** A click on a header sorts ascending (A to Z; for a similarity the worst first), a second click the other way. */
  const toggle = (key: SortKey) =>
    setSort((current) =>
      current && same(current.key, key)
        ? { key, direction: current.direction === 'ascending' ? 'descending' : 'ascending' }
        : { key, direction: 'ascending' },
    );
  const ariaSort = (key: SortKey) => (sort && same(sort.key, key) ? sort.direction : 'none');
  // eslint-disable-next-line react-hooks/incompatible-library -- read on every render, never memoized: what it warns of
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const width = `calc(16rem + ${props.columns.length} * 7rem)`;
  return (
    <div className="matrix" ref={scroller} role="grid" aria-label="Matrix" aria-rowcount={rows.length + 1} aria-colcount={props.columns.length + 1}>
      <div role="row" className="header-row" aria-rowindex={1} style={{ width }}>
        <span role="columnheader" aria-sort={ariaSort({ by: 'document' })}>
          <button type="button" className="sort" onClick={() => toggle({ by: 'document' })}>
            Document
          </button>
        </span>
        {props.columns.map((column) => (
          <span role="columnheader" key={column.id} title={column.label} aria-sort={ariaSort({ by: 'column', id: column.id })}>
            <button type="button" className="sort" aria-label={`Sort by ${column.label}`} onClick={() => toggle({ by: 'column', id: column.id })}>
              {column.label}
            </button>
          </span>
        ))}
      </div>
      <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative', width }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          return (
            <div role="row" key={row.id} aria-rowindex={item.index + 2} style={{ position: 'absolute', top: 0, transform: `translateY(${item.start}px)`, height: ROW_HEIGHT, width }}>
              <span role="rowheader" title={row.filename}>
                <Link to={`/evals/${encodeURIComponent(props.evaluationId)}/documents/${encodeURIComponent(row.id)}`}>{row.filename}</Link>
              </span>
              {props.columns.map((column) => {
                const value = row.similarities[column.id];
                const text = formatSimilarity(value);
                return (
                  <span role="gridcell" key={column.id} aria-label={`${row.filename} × ${column.label}: ${value === null || value === undefined ? 'no prediction' : text}`} style={{ background: similarityColour(value) }}>
                    {text}
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
