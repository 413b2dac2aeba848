import { describe, expect, it } from 'vitest';
import { sortRows, type MatrixRow } from '../src/components/Matrix.js';

const rows: MatrixRow[] = [
  { id: 'b', filename: 'b.txt', similarities: { it1: 0.5, it2: 1 } },
  { id: 'a', filename: 'a.txt', similarities: { it1: null, it2: 0.25 } },
  { id: 'c', filename: 'c.txt', similarities: { it1: 0.1 } },
];
const ids = (sorted: MatrixRow[]) => sorted.map((r) => r.id);

describe('the matrix order', () => {
  it('keeps the server order without a sort, and never changes the given array', () => {
    expect(ids(sortRows(rows, null))).toEqual(['b', 'a', 'c']);
    sortRows(rows, { key: { by: 'document' }, direction: 'descending' });
    expect(ids(rows)).toEqual(['b', 'a', 'c']);
  });

  it('sorts by filename both ways', () => {
    expect(ids(sortRows(rows, { key: { by: 'document' }, direction: 'ascending' }))).toEqual(['a', 'b', 'c']);
    expect(ids(sortRows(rows, { key: { by: 'document' }, direction: 'descending' }))).toEqual(['c', 'b', 'a']);
  });

  it("sorts by an iteration's similarity (worst first ascending), documents without a prediction last either way", () => {
    expect(ids(sortRows(rows, { key: { by: 'column', id: 'it1' }, direction: 'ascending' }))).toEqual(['c', 'b', 'a']);
    expect(ids(sortRows(rows, { key: { by: 'column', id: 'it1' }, direction: 'descending' }))).toEqual(['b', 'c', 'a']);
    expect(ids(sortRows(rows, { key: { by: 'column', id: 'it2' }, direction: 'ascending' }))).toEqual(['a', 'b', 'c']);
  });
});
