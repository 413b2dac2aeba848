// The matrix's order, through a real react-table table (table-core's `constructTable`, the function `useTable`
// calls) built from the matrix's own columns, features and shared options; the header buttons' handler is called as
// a click calls it.
import { constructTable } from '@tanstack/table-core';
import { storeReactivityBindings } from '@tanstack/table-core/store-reactivity-bindings';
import { describe, expect, it } from 'vitest';
import { ariaSort } from '../src/components/DataTable.js';
import { DOCUMENT_COLUMN, iterationColumnId, matrixColumns, type MatrixRow } from '../src/components/Matrix.js';
import { features, tableDefaults } from '../src/table.js';

const rows: MatrixRow[] = [
  { id: 'b', filename: 'b.txt', similarities: { it1: 0.5, it2: 1 } },
  // No prediction: `null` (failed) in it1, absent in it3.
  { id: 'a', filename: 'a.txt', similarities: { it1: null, it2: 0.25 } },
  { id: 'd', filename: 'd.txt', similarities: { it1: 0.9, it2: 0.25, it3: 0.5 } },
  { id: 'c', filename: 'c.txt', similarities: { it1: 0.1, it2: 0 } },
];

function matrixTable() {
  // What `useTable` adds to the features: the reactivity of its state (here TanStack Store's, outside React).
  const withReactivity: typeof features = Object.assign({ coreReactivityFeature: storeReactivityBindings() }, features);
  const table = constructTable({
    features: withReactivity,
    ...tableDefaults,
    columns: matrixColumns('ev', ['it1', 'it2', 'it3'].map((id) => ({ id, label: id }))),
    data: rows,
    getRowId: (row: MatrixRow) => row.id,
  });
  const ids = () => table.getRowModel().rows.map((row) => row.id);
  const click = (columnId: string) => {
    const column = table.getColumn(columnId)!;
    column.getToggleSortingHandler()!({});
    return { ids: ids(), ariaSort: ariaSort(column) };
  };
  return { table, ids, click };
}

describe('the matrix order (react-table sorting state)', () => {
  it('keeps the server order without a sort, and never changes the given array', () => {
    const { ids, click } = matrixTable();
    expect(ids()).toEqual(['b', 'a', 'd', 'c']);
    click(DOCUMENT_COLUMN);
    expect(rows.map((row) => row.id)).toEqual(['b', 'a', 'd', 'c']);
  });

  it('sorts by filename A to Z on the first click, Z to A on the second, and back', () => {
    const { click } = matrixTable();
    expect(click(DOCUMENT_COLUMN)).toEqual({ ids: ['a', 'b', 'c', 'd'], ariaSort: 'ascending' });
    expect(click(DOCUMENT_COLUMN)).toEqual({ ids: ['d', 'c', 'b', 'a'], ariaSort: 'descending' });
    // No third, unsorted state.
    expect(click(DOCUMENT_COLUMN)).toEqual({ ids: ['a', 'b', 'c', 'd'], ariaSort: 'ascending' });
  });

  it("sorts by an iteration's similarity worst first on the first click, documents without a prediction last either way", () => {
    const { click } = matrixTable();
    expect(click(iterationColumnId('it1'))).toEqual({ ids: ['c', 'b', 'd', 'a'], ariaSort: 'ascending' });
    expect(click(iterationColumnId('it1'))).toEqual({ ids: ['d', 'b', 'c', 'a'], ariaSort: 'descending' });
    // Equal similarities keep the server order (a before d at 0.25), both ways.
    expect(click(iterationColumnId('it2'))).toEqual({ ids: ['c', 'a', 'd', 'b'], ariaSort: 'ascending' });
    expect(click(iterationColumnId('it2'))).toEqual({ ids: ['b', 'a', 'd', 'c'], ariaSort: 'descending' });
    // Absent (not only null) is missing too: the one document with a prediction first, then the server order.
    expect(click(iterationColumnId('it3'))).toEqual({ ids: ['d', 'b', 'a', 'c'], ariaSort: 'ascending' });
    expect(click(iterationColumnId('it3'))).toEqual({ ids: ['d', 'b', 'a', 'c'], ariaSort: 'descending' });
  });

  it('sorts by one column at a time: a click on another header replaces the sort', () => {
    const { table, click } = matrixTable();
    click(DOCUMENT_COLUMN);
    expect(click(iterationColumnId('it2')).ariaSort).toBe('ascending');
    expect(ariaSort(table.getColumn(DOCUMENT_COLUMN)!)).toBe('none');
    expect(table.atoms.sorting.get()).toEqual([{ id: iterationColumnId('it2'), desc: false }]);
  });
});
