import {
  constructSortFn,
  createSortedRowModel,
  createTableHook,
  metaHelper,
  rowSortingFeature,
  tableFeatures,
  type RowData,
} from '@tanstack/react-table';
import type { TdHTMLAttributes } from 'react';

/** How a column looks in `DataTable`: what react-table leaves to the renderer. */
export interface ColumnLook {
  /** Figures: `className="number"` (right-aligned, tabular digits) on the header and the cells. */
  numeric?: boolean;
  /** The column's cells are their row's header (`<th scope="row">`). */
  rowHeader?: boolean;
  /** More attributes of a cell from its value: a background colour, `aria-hidden` for a decoration. */
  cellAttributes?: (value: unknown) => TdHTMLAttributes<HTMLTableCellElement>;
}

/**
 * What every table of the app registers: sorting (state, toggles, the sorted row model) and the `ColumnLook` meta.
 * Nothing else: each feature is code in the bundle, and no table filters, pages or selects rows on the client.
 */
export const features = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  columnMeta: metaHelper<ColumnLook>(),
});
export type Features = typeof features;

/**
 * The options every table shares: one column sorted at a time, and a header click flips between the two directions
 * (no third "unsorted" state: the tables that start unsorted show the server's order until the first click).
 */
export const tableDefaults = { enableMultiSort: false, enableSortingRemoval: false } as const;

/** `useAppTable` (react-table's `useTable` with `features` and `tableDefaults`) and its column helper. */
export const { useAppTable, createAppColumnHelper } = createTableHook({ features, ...tableDefaults });

/** The data of a table whose rows have not come yet: always this array, so that the row model is not rebuilt. */
export const NO_ROWS: readonly never[] = [];

/** Text by `localeCompare` (ascending; the table reverses it for descending). */
export const byText = constructSortFn({ sort: (a: unknown, b: unknown) => String(a).localeCompare(String(b)) });

/** Numbers ascending; the table reverses it for descending. Missing values never get here: see `figureSorting`. */
export const byNumber = constructSortFn({ sort: (a: number, b: number) => a - b });

/**
 * The sorting of a column of figures that may be missing (no prediction, no mean, no cost): by `byNumber`, and the
 * rows without a figure last in either direction. react-table reverses a sorting function's result for a descending
 * sort, so a sorting function alone cannot keep them last both ways: `sortUndefined: 'last'` does, before the
 * function is called. It only knows `undefined`: the column's accessor must turn `null` into `undefined`
 * (`?? undefined`). `first` is the first click's direction: `'asc'` for a similarity (worst first), `'desc'` for a
 * count of problems or a cost (most first).
 */
export function figureSorting(first: 'asc' | 'desc') {
  return { sortFn: byNumber, sortUndefined: 'last', sortDescFirst: first === 'desc' } as const;
}

/**
 * A column of figures that may be missing (a similarity, a mean, a delta, a cost): `value` read from the row (`null`
 * counts as missing), written by `format` (which gets `undefined` for a missing one), right-aligned, sorted by
 * `figureSorting(first)`.
 */
export function figureColumn<TData extends RowData>(column: {
  id: string;
  header: string;
  value: (row: TData) => number | null | undefined;
  first: 'asc' | 'desc';
  format: (value: number | undefined) => string;
  look?: ColumnLook;
}) {
  return createAppColumnHelper<TData>().accessor((row) => column.value(row) ?? undefined, {
    id: column.id,
    header: column.header,
    meta: { numeric: true, ...column.look },
    ...figureSorting(column.first),
    cell: ({ getValue }) => column.format(getValue()),
  });
}
