import { useQuery } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Matrix, type MatrixColumn, type MatrixRow } from './Matrix.js';
import { iterationLabel, plural, useFieldScores, type Outcome, type useMatrix } from '../evaluation-data.js';
import { useEditSearch } from '../search-params.js';
import { errorMessage, useTRPC } from '../trpc.js';


const OUTCOMES = ['failed', 'succeeded', 'pending'] as const;

/** The matrix's filters, read from and written to the URL (`?outcome=&below=&field=&q=&sort=&desc=`): a view can be shared. */
export interface MatrixFilters {
  /** Documents with this outcome in at least one iteration. */
  outcome: Outcome | '';
  /** Documents scored below this in at least one iteration (on `field` when one is chosen). */
  below: number | null;
  /** The cells show this field's score (metrics' paths, list items as `*`) instead of the document's. */
  field: string;
  /** Part of the file name, any case. */
  q: string;
  /** The sorted column (`document` or an iteration id) and its direction. */
  sort: string;
  desc: boolean;
}

export function readMatrixFilters(search: URLSearchParams): MatrixFilters {
  const outcome = search.get('outcome') ?? '';
  const below = Number(search.get('below') ?? '');
  return {
    outcome: (OUTCOMES as readonly string[]).includes(outcome) ? (outcome as Outcome) : '',
    below: search.get('below') && Number.isFinite(below) ? below : null,
    field: search.get('field') ?? '',
    q: search.get('q') ?? '',
    sort: search.get('sort') ?? '',
    desc: search.get('desc') === '1',
  };
}

/**
 * The matrix from `useMatrix` (every document's similarity and outcome in every iteration), narrowed by the
 * filters of the URL. With a field chosen, each cell is that field's score in the document (from the iteration's
 * predictions' metrics, read once per iteration).
 */
export function MatrixSection(props: { evaluationId: string; matrix: ReturnType<typeof useMatrix> }) {
  const [search] = useSearchParams();
  const editSearch = useEditSearch();
  const filters = readMatrixFilters(search);
  // The pages read so far: the grid shows its first rows while the rest of a large evaluation is read.
  const data = props.matrix.data ?? props.matrix.partial;
  const complete = props.matrix.data !== undefined;
  const iterations = data?.iterations ?? NO_COLUMNS;
  const iterationIds = useMemo(() => iterations.map((iteration) => iteration.id), [iterations]);
  const documentIds = useMemo(() => props.matrix.data?.documents.map((document) => document.id) ?? null, [props.matrix.data]);
  const fieldScores = useFieldScores(props.evaluationId, iterationIds, filters.field, documentIds);
  const trpc = useTRPC();
  const fieldNames = useQuery({ ...trpc.evals.iterations.fields.queryOptions({ evaluation_id: props.evaluationId, iteration_id: iterationIds.at(-1) ?? '' }), enabled: iterationIds.length > 0 && complete });
  // The headers are the matrix answer's names (`name`, else model and id): no join with the evaluation's summary.
  const columns: MatrixColumn[] = useMemo(() => iterations.map((iteration) => ({ id: iteration.id, label: iterationLabel(iteration) })), [iterations]);
  const allRows: Array<MatrixRow & { outcomes: Record<string, Outcome> }> = useMemo(() => {
    if (!data) return [];
    return data.documents.map((document) => ({
      id: document.id,
      filename: document.filename,
      similarities: Object.fromEntries(
        iterations.map((iteration) => {
          const outcome = data.outcomes.get(iteration.id)?.get(document.id);
          if (filters.field !== '') return [iteration.id, outcome === 'succeeded' ? fieldScores.scores.get(iteration.id)?.get(document.id) : undefined];
          return [iteration.id, data.similarities.get(iteration.id)?.get(document.id)];
        }),
      ),
      outcomes: Object.fromEntries(iterations.map((iteration) => [iteration.id, data.outcomes.get(iteration.id)?.get(document.id) ?? 'pending'])),
    }));
  }, [data, iterations, filters.field, fieldScores.scores]);
  const rows = useMemo(() => {
    const q = filters.q.trim().toLowerCase();
    return allRows.filter((row) => {
      if (q !== '' && !row.filename.toLowerCase().includes(q)) return false;
      if (filters.outcome !== '' && !iterations.some((iteration) => row.outcomes[iteration.id] === filters.outcome)) return false;
      // A failed document scores 0 (issue 25's honest numbers): it is below any threshold above 0.
      const scoreIn = (id: string) => (row.outcomes[id] === 'failed' ? 0 : row.similarities[id]);
      if (filters.below !== null && !iterations.some((iteration) => { const score = scoreIn(iteration.id); return typeof score === 'number' && score < filters.below!; })) return false;
      return true;
    });
  }, [allRows, filters.q, filters.outcome, filters.below, iterations]);

  const update = (changes: Record<string, string | null>) =>
    editSearch((next) => {
      for (const [key, value] of Object.entries(changes)) {
        if (value === null || value === '') next.delete(key);
        else next.set(key, value);
      }
    });

  if (props.matrix.error) return <p role="alert">Cannot load the matrix: {errorMessage(props.matrix.error)}</p>;
  if (data === undefined) return <p aria-busy="true">Loading…</p>;
  if (allRows.length === 0 && complete) return <p className="muted">No document yet.</p>;
  const sorting = filters.sort === '' ? [] : [{ id: filters.sort === 'document' ? 'document' : `iteration:${filters.sort}`, desc: filters.desc }];
  return (
    <>
      <MatrixFilterBar filters={filters} fields={fieldNames.data?.fields.map((field) => field.field) ?? []} update={update} />
      <p className="muted" aria-live="polite">
        {rows.length === allRows.length ? plural(allRows.length, 'document') : `${plural(rows.length, 'document')} of ${allRows.length.toLocaleString('en')}`}
        {!complete && ' read so far, reading the next…'}
        {filters.field !== '' && (fieldScores.pending ? ` · reading the scores of ${filters.field}…` : ` · cells show ${filters.field}`)}
      </p>
      {fieldScores.error && <p role="alert">Cannot read the field's scores: {errorMessage(fieldScores.error)}</p>}
      <Matrix
        evaluationId={props.evaluationId}
        columns={columns}
        rows={rows}
        sorting={sorting}
        onSortingChange={(next) => {
          const first = next[0];
          update(first ? { sort: first.id === 'document' ? 'document' : first.id.replace(/^iteration:/, ''), desc: first.desc ? '1' : null } : { sort: null, desc: null });
        }}
      />
    </>
  );
}

const NO_COLUMNS: Array<{ id: string; model: string }> = [];

/** The matrix's filters as form controls; each change goes to the URL at once. */
function MatrixFilterBar(props: { filters: MatrixFilters; fields: string[]; update: (changes: Record<string, string | null>) => void }) {
  const { filters, update } = props;
  const ids = { q: useId(), outcome: useId(), below: useId(), field: useId() };
  const [below, setBelow] = useState(filters.below === null ? '' : String(filters.below));
  const active = filters.q !== '' || filters.outcome !== '' || filters.below !== null || filters.field !== '';
  return (
    <form className="filters" role="search" aria-label="Filter the matrix" onSubmit={(event) => event.preventDefault()}>
      <div>
        <label htmlFor={ids.q}>File name</label>
        <input id={ids.q} type="search" value={filters.q} placeholder="contains…" onChange={(event) => update({ q: event.target.value })} />
      </div>
      <div>
        <label htmlFor={ids.outcome}>Outcome</label>
        <select id={ids.outcome} value={filters.outcome} onChange={(event) => update({ outcome: event.target.value })}>
          <option value="">Any</option>
          <option value="failed">Failed in an iteration</option>
          <option value="succeeded">Succeeded in an iteration</option>
          <option value="pending">Pending in an iteration</option>
        </select>
      </div>
      <div>
        <label htmlFor={ids.below}>Score below</label>
        <input
          id={ids.below}
          type="number"
          min={0}
          max={1}
          step={0.05}
          value={below}
          placeholder="0–1"
          onChange={(event) => {
            setBelow(event.target.value);
            const value = Number(event.target.value);
            update({ below: event.target.value === '' || !Number.isFinite(value) ? null : event.target.value });
          }}
        />
      </div>
      <div>
        <label htmlFor={ids.field}>Field</label>
        <select id={ids.field} value={filters.field} onChange={(event) => update({ field: event.target.value })}>
          <option value="">Whole document</option>
          {(props.fields.includes(filters.field) || filters.field === '' ? props.fields : [filters.field, ...props.fields]).map((field) => (
            <option key={field} value={field}>
              {field}
            </option>
          ))}
        </select>
      </div>
      {active && (
        <button
          type="button"
          onClick={() => {
            setBelow('');
            update({ q: null, outcome: null, below: null, field: null });
          }}
        >
          Clear filters
        </button>
      )}
    </form>
  );
}

