import { FlexRender, type Column, type ReactTable, type RowData } from '@tanstack/react-table';
import type { ReactNode } from 'react';
import type { Features } from '../table.js';

/** A column's `aria-sort`: the direction it sorts the rows in, `none` when another column (or none) does. */
export function ariaSort<TData extends RowData>(column: Column<Features, TData, unknown>): 'ascending' | 'descending' | 'none' {
  const direction = column.getIsSorted();
  return direction === 'asc' ? 'ascending' : direction === 'desc' ? 'descending' : 'none';
}

/**
 * A sortable column's header content: a button that toggles the column's sorting (react-table's toggle: the
 * column's first direction, then the other). The arrow after it comes from the CSS, from the header's `aria-sort`.
 */
export function SortButton<TData extends RowData>(props: { column: Column<Features, TData, unknown>; label?: string; children: ReactNode }) {
  return (
    <button type="button" className="sort" aria-label={props.label} onClick={props.column.getToggleSortingHandler()}>
      {props.children}
    </button>
  );
}

/**
 * A `<table>` rendered from a react-table instance (`useAppTable`): header cells (`scope="col"`; a sortable column's
 * header holds a `SortButton` and carries `aria-sort`), then the row model's rows in the table's current order.
 * Each column's `meta` (`ColumnLook`) says whether it holds figures, is the row's header, or adds cell attributes.
 * `empty`, when given, is the one row shown when there is no row.
 */
export function DataTable<TData extends RowData>(props: { table: ReactTable<Features, TData, unknown>; label: string; empty?: ReactNode }) {
  const { table } = props;
  const rows = table.getRowModel().rows;
  return (
    <table aria-label={props.label}>
      <thead>
        {table.getHeaderGroups().map((group) => (
          <tr key={group.id}>
            {group.headers.map((header) => {
              const { column } = header;
              const sortable = column.getCanSort();
              return (
                <th key={header.id} scope="col" className={column.columnDef.meta?.numeric ? 'number' : undefined} aria-sort={sortable ? ariaSort(column) : undefined}>
                  {sortable ? (
                    <SortButton column={column}>
                      <FlexRender header={header} />
                    </SortButton>
                  ) : (
                    <FlexRender header={header} />
                  )}
                </th>
              );
            })}
          </tr>
        ))}
      </thead>
      <tbody>
        {rows.length === 0 && props.empty !== undefined && (
          <tr>
            <td colSpan={table.getAllLeafColumns().length} className="muted">
              {props.empty}
            </td>
          </tr>
        )}
        {rows.map((row) => (
          <tr key={row.id}>
            {row.getAllCells().map((cell) => {
              const look = cell.column.columnDef.meta;
              const attributes = { ...look?.cellAttributes?.(cell.getValue()), className: look?.numeric ? 'number' : undefined };
              return look?.rowHeader ? (
                <th key={cell.id} scope="row" {...attributes}>
                  <FlexRender cell={cell} />
                </th>
              ) : (
                <td key={cell.id} {...attributes}>
                  <FlexRender cell={cell} />
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
