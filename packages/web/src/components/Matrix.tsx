import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
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

/**
 * Documents × iterations, one similarity per cell, number and colour; rows are virtualized (only the visible ones
 * are in the page), so thousands of documents scroll smoothly. A `grid` with `aria-rowcount` for screen readers.
 */
export function Matrix(props: { evaluationId: string; columns: MatrixColumn[]; rows: MatrixRow[] }) {
  const scroller = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- read on every render, never memoized: what it warns of
  const virtualizer = useVirtualizer({ count: props.rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const width = `calc(16rem + ${props.columns.length} * 7rem)`;
  return (
    <div className="matrix" ref={scroller} role="grid" aria-label="Matrix" aria-rowcount={props.rows.length + 1} aria-colcount={props.columns.length + 1}>
      <div role="row" className="header-row" aria-rowindex={1} style={{ width }}>
        <span role="columnheader">Document</span>
        {props.columns.map((column) => (
          <span role="columnheader" key={column.id} title={column.label}>
            {column.label}
          </span>
        ))}
      </div>
      <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative', width }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = props.rows[item.index];
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
