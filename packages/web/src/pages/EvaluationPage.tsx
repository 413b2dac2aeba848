import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { lazy, Suspense, useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { useEditSearch } from '../search-params.js';
import { authHeaders } from '../auth.js';
import { DataTable } from '../components/DataTable.js';
import { FileDrop } from '../components/FileDrop.js';
import { readAsDataUrl } from '../files.js';
import { Matrix, type MatrixColumn, type MatrixRow } from '../components/Matrix.js';
import { iterationLabel, plural, useFieldScores, useMatrixData, type Outcome } from '../evaluation-data.js';
import { formatSimilarity } from '../similarity-colour.js';
import { byText, createAppColumnHelper, figureColumn, figureSorting, NO_ROWS, useAppTable } from '../table.js';
import { errorMessage, restUrl, useTRPC, useTRPCClient, type RouterOutputs } from '../trpc.js';

export { iterationLabel };

type IterationSummary = RouterOutputs['evals']['getSummary']['iterations'][number];
type LeaderboardRow = RouterOutputs['evals']['leaderboard']['rows'][number];
type FieldRow = RouterOutputs['evals']['iterations']['fields']['fields'][number];

/** The charts and their library (recharts): a chunk of their own, loaded when the page opens, after it. */
const Charts = lazy(() => import('../components/Charts.js'));

/** `/evals/:evaluationId`: leaderboard, matrix, fields of the selected iteration, run, export, compare. */
export function EvaluationPage() {
  const { evaluationId = '' } = useParams();
  const trpc = useTRPC();
  const ref = { evaluation_id: evaluationId };
  // The evaluation without its documents (their count, the iterations as summaries): no file is read for the page.
  const evaluation = useQuery(trpc.evals.getSummary.queryOptions(ref));
  const leaderboard = useQuery(trpc.evals.leaderboard.queryOptions(ref));
  const [selected, setSelected] = useState<string | null>(null);
  const list = evaluation.data?.iterations ?? NO_SUMMARIES;
  const matrix = useMatrixData(evaluationId, list);
  const filenames = useMemo(() => new Map(matrix.data?.documents.map((document) => [document.id, document.filename]) ?? []), [matrix.data]);
  const selectedId = selected ?? leaderboard.data?.rows[0]?.iteration_id ?? list.at(-1)?.id ?? null;
  const selectedIteration = list.find((iteration) => iteration.id === selectedId) ?? null;

  if (evaluation.error) {
    return (
      <p role="alert">
        Cannot open this evaluation: {errorMessage(evaluation.error)} <Link to="/">Back to the evaluations</Link>
      </p>
    );
  }
  return (
    <>
      <p>
        <Link to="/">Evaluations</Link>
      </p>
      <h1>{evaluation.data?.name ?? 'Loading…'}</h1>
      {evaluation.data && (
        <p className="muted">
          {plural(evaluation.data.document_count, 'document')} · {plural(list.length, 'iteration')} · id <code>{evaluationId}</code>
        </p>
      )}
      {evaluation.data && evaluation.data.unlabeled_count > 0 && (
        <p role="status" className="unlabeled-note">
          {evaluation.data.unlabeled_count} of {evaluation.data.document_count} documents have no ground truth: they are in no mean until
          you annotate them (open a document below, or import annotations).
        </p>
      )}

      <RunSection evaluationId={evaluationId} iterations={list} filenames={filenames} />

      <AddDocuments evaluationId={evaluationId} />

      <section aria-labelledby="leaderboard-title">
        <h2 id="leaderboard-title">Leaderboard</h2>
        {leaderboard.error && <p role="alert">{errorMessage(leaderboard.error)}</p>}
        <LeaderboardTable rows={leaderboard.data?.rows} selectedId={selectedId} onSelect={setSelected} />
      </section>

      {selectedIteration && <ExportAndCompare evaluationId={evaluationId} iteration={selectedIteration} iterations={list} />}

      <section aria-labelledby="charts-title">
        <h2 id="charts-title">Charts</h2>
        {evaluation.data && (
          <Suspense fallback={<p aria-busy="true">Loading the charts…</p>}>
            <Charts evaluationId={evaluationId} iterations={list} leaderboard={leaderboard.data?.rows ?? NO_ROWS} matrix={matrix.data} selectedId={selectedId} />
          </Suspense>
        )}
      </section>

      <section aria-labelledby="matrix-title">
        <h2 id="matrix-title">Documents × iterations</h2>
        <MatrixSection evaluationId={evaluationId} iterations={list} matrix={matrix} />
      </section>

      <section aria-labelledby="fields-title">
        <h2 id="fields-title">Fields {selectedIteration ? `of ${iterationLabel(selectedIteration)}` : ''}</h2>
        {selectedId ? <FieldsTable evaluationId={evaluationId} iterationId={selectedId} /> : <p className="muted">No iteration yet.</p>}
      </section>
    </>
  );
}

const NO_SUMMARIES: IterationSummary[] = [];

/**
 * Add documents (files chosen or dropped) to this evaluation: each is sent with `documents.add`, one at a time with
 * progress; the matrix and the counts are read again after. They start without ground truth (pending in every
 * iteration until run again).
 */
function AddDocuments(props: { evaluationId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const add = useMutation(trpc.evals.documents.add.mutationOptions());
  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setOutcome(null);
    let added = 0;
    try {
      for (const [index, file] of files.entries()) {
        setProgress(`Adding ${file.name} (${index + 1} of ${files.length})…`);
        await add.mutateAsync({ evaluation_id: props.evaluationId, mime_data: { filename: file.name, url: await readAsDataUrl(file) } });
        added += 1;
      }
      setFiles([]);
      setOpen(false);
    } catch (failure) {
      setError(`${errorMessage(failure)} (${plural(added, 'document')} added before it)`);
      setFiles(files.slice(added));
    } finally {
      setProgress(null);
      if (added > 0) setOutcome(`${plural(added, 'document')} added.`);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() }),
        queryClient.invalidateQueries({ queryKey: ['matrix', props.evaluationId] }),
      ]);
    }
  }
  return (
    <section aria-labelledby="add-documents-title" className="panel">
      <div className="row">
        <h2 id="add-documents-title" style={{ margin: 0, flex: 1 }}>
          Documents
        </h2>
        <button type="button" onClick={() => setOpen(!open)} aria-expanded={open}>
          Add documents
        </button>
      </div>
      {open && (
        <form onSubmit={(event) => void submit(event)}>
          <FileDrop label="Files to add" files={files} onChange={setFiles} />
          <p className="row" style={{ marginTop: '0.75rem' }}>
            <button type="submit" className="primary" disabled={files.length === 0 || progress !== null}>
              Add {files.length > 0 ? plural(files.length, 'file') : 'files'}
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              Close
            </button>
          </p>
        </form>
      )}
      {progress && <p aria-live="polite">{progress}</p>}
      {outcome && <p aria-live="polite">{outcome}</p>}
      {error && <p role="alert">{error}</p>}
    </section>
  );
}
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
 * The matrix from `useMatrixData` (every document's similarity and outcome in every iteration), narrowed by the
 * filters of the URL. With a field chosen, each cell is that field's score in the document (from the iteration's
 * predictions' metrics, read once per iteration).
 */
function MatrixSection(props: { evaluationId: string; iterations: IterationSummary[]; matrix: ReturnType<typeof useMatrixData> }) {
  const [search] = useSearchParams();
  const editSearch = useEditSearch();
  const filters = readMatrixFilters(search);
  const data = props.matrix.data;
  const iterations = data?.iterations ?? NO_COLUMNS;
  const iterationIds = useMemo(() => iterations.map((iteration) => iteration.id), [iterations]);
  const fieldScores = useFieldScores(props.evaluationId, iterationIds, filters.field);
  const trpc = useTRPC();
  const fieldNames = useQuery({ ...trpc.evals.iterations.fields.queryOptions({ evaluation_id: props.evaluationId, iteration_id: iterationIds.at(-1) ?? '' }), enabled: iterationIds.length > 0 });
  const names = useMemo(() => new Map(props.iterations.map((iteration) => [iteration.id, iterationLabel(iteration)])), [props.iterations]);
  const columns: MatrixColumn[] = useMemo(() => iterations.map((iteration) => ({ id: iteration.id, label: names.get(iteration.id) ?? iterationLabel(iteration) })), [iterations, names]);
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
  if (props.matrix.isPending) return <p aria-busy="true">Loading…</p>;
  if (allRows.length === 0) return <p className="muted">No document yet.</p>;
  const sorting = filters.sort === '' ? [] : [{ id: filters.sort === 'document' ? 'document' : `iteration:${filters.sort}`, desc: filters.desc }];
  return (
    <>
      <MatrixFilterBar filters={filters} fields={fieldNames.data?.fields.map((field) => field.field) ?? []} update={update} />
      <p className="muted" aria-live="polite">
        {rows.length === allRows.length ? plural(allRows.length, 'document') : `${plural(rows.length, 'document')} of ${allRows.length.toLocaleString('en')}`}
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

/** A similarity as the tables write it: three decimals. */
const threeDigits = (value: number | undefined) => formatSimilarity(value, 3);

const leaderboardHelper = createAppColumnHelper<LeaderboardRow>();
/** Best first, as the server ranks them (`evals.leaderboard`'s default): the table's first order says so. */
const leaderboardOrder = { sorting: [{ id: 'mean_similarity', desc: true }] };

/** The leaderboard's columns; the last one's "Select" button chooses `selectedId`. */
function leaderboardColumns(selectedId: string | null, onSelect: (iterationId: string) => void) {
  return leaderboardHelper.columns([
    leaderboardHelper.accessor('model', {
      header: 'Iteration',
      sortFn: byText,
      sortDescFirst: false,
      cell: ({ row }) => (
        <>
          <strong>{row.original.model}</strong> <code className="muted">{row.original.iteration_id}</code>
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
        <button type="button" aria-pressed={original.iteration_id === selectedId} onClick={() => onSelect(original.iteration_id)} aria-label={`${original.iteration_id === selectedId ? 'Selected' : 'Select'} ${original.model} (${original.iteration_id})`}>
          {original.iteration_id === selectedId ? 'Selected' : 'Select'}
        </button>
      ),
    }),
  ]);
}

/** The leaderboard: best mean first, sortable by each figure; `rows` undefined while it loads. */
function LeaderboardTable(props: { rows: readonly LeaderboardRow[] | undefined; selectedId: string | null; onSelect: (iterationId: string) => void }) {
  const { selectedId, onSelect } = props;
  const columns = useMemo(() => leaderboardColumns(selectedId, onSelect), [selectedId, onSelect]);
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

/** The selected iteration's fields, worst mean first; sortable by each column. */
function FieldsTable(props: { evaluationId: string; iterationId: string }) {
  const trpc = useTRPC();
  const fields = useQuery(trpc.evals.iterations.fields.queryOptions({ evaluation_id: props.evaluationId, iteration_id: props.iterationId }));
  const table = useAppTable({ columns: fieldColumns, data: fields.data?.fields ?? NO_ROWS, getRowId: (row) => row.field, initialState: fieldOrder });
  if (fields.error) return <p role="alert">{errorMessage(fields.error)}</p>;
  return <DataTable table={table} label="Fields" />;
}

/** Downloads the selected iteration's export from the REST API (the key in a header, so not a plain link). */
async function download(evaluationId: string, iterationId: string, format: 'csv' | 'jsonl') {
  const url = restUrl(`/v1/evals/${encodeURIComponent(evaluationId)}/iterations/${encodeURIComponent(iterationId)}/export?format=${format}`);
  const response = await fetch(url, { headers: authHeaders() });
  if (!response.ok) throw new Error(`export failed: HTTP ${response.status} ${await response.text()}`);
  const name = /filename="?([^";]+)"?/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `${iterationId}.${format}`;
  const blob = await response.blob();
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

function ExportAndCompare(props: { evaluationId: string; iteration: IterationSummary; iterations: IterationSummary[] }) {
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  const others = props.iterations.filter((iteration) => iteration.id !== props.iteration.id);
  const [base, setBase] = useState(others.at(-1)?.id ?? props.iteration.id);
  const [head, setHead] = useState(props.iteration.id);
  const baseId = useId();
  const headId = useId();
  const onDownload = (format: 'csv' | 'jsonl') => {
    setError(null);
    download(props.evaluationId, props.iteration.id, format).catch((failure: unknown) => setError(errorMessage(failure)));
  };
  const compare = (event: FormEvent) => {
    event.preventDefault();
    void navigate(`/evals/${encodeURIComponent(props.evaluationId)}/compare?base=${encodeURIComponent(base)}&head=${encodeURIComponent(head)}`);
  };
  return (
    <section aria-label="Selected iteration" className="panel">
      <div className="row">
        <span>
          Selected: <strong>{iterationLabel(props.iteration)}</strong>
        </span>
        <button type="button" onClick={() => onDownload('csv')}>
          Download CSV
        </button>
        <button type="button" onClick={() => onDownload('jsonl')}>
          Download JSONL
        </button>
      </div>
      {error && <p role="alert">{error}</p>}
      {props.iterations.length > 1 && (
        <form className="row" onSubmit={compare} style={{ marginTop: '0.5rem' }}>
          <label htmlFor={baseId}>Base</label>
          <select id={baseId} value={base} onChange={(event) => setBase(event.target.value)}>
            {props.iterations.map((iteration) => (
              <option key={iteration.id} value={iteration.id}>
                {iterationLabel(iteration)}
              </option>
            ))}
          </select>
          <label htmlFor={headId}>Head</label>
          <select id={headId} value={head} onChange={(event) => setHead(event.target.value)}>
            {props.iterations.map((iteration) => (
              <option key={iteration.id} value={iteration.id}>
                {iterationLabel(iteration)}
              </option>
            ))}
          </select>
          <button type="submit">Compare</button>
        </form>
      )}
    </section>
  );
}

interface LiveProgress {
  total: number;
  succeeded: number;
  failed: number;
  pending: number;
}

/** Start an iteration (model from `models.list`: what the organization can run now, with its keys; settings with defaults), follow it live, cancel, re-run failures. */
function RunSection(props: { evaluationId: string; iterations: IterationSummary[]; filenames: ReadonlyMap<string, string> }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [model, setModel] = useState('');
  const [temperature, setTemperature] = useState('0');
  const [running, setRunning] = useState<string | null>(null);
  const [progress, setProgress] = useState<LiveProgress | null>(null);
  const [failures, setFailures] = useState<{ document_id: string; error: string }[]>([]);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const models = useQuery(trpc.models.list.queryOptions());
  const modelId = useId();
  const temperatureId = useId();
  const listId = useId();

  // An iteration already running when the page opens (started elsewhere, or before a reload) is followed too.
  const active = props.iterations.find((iteration) => iteration.status === 'running' || iteration.status === 'queued');
  const current = running ?? (outcome === null ? (active?.id ?? null) : null);
  const shown = progress ?? (current !== null && current === active?.id ? active.progress : null);

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() }),
      queryClient.invalidateQueries({ queryKey: ['matrix', props.evaluationId] }),
    ]);

  const summary = useQuery({
    ...trpc.evals.iterations.getSummary.queryOptions({ evaluation_id: props.evaluationId, iteration_id: current ?? '' }),
    enabled: current !== null,
    refetchInterval: current ? 2_000 : false,
  });

  useSubscription(
    trpc.evals.iterations.events.subscriptionOptions(
      { evaluation_id: props.evaluationId, iteration_id: current ?? '' },
      {
        enabled: current !== null,
        onData: ({ data: event }) => {
          if (event.type === 'progress') setProgress(event.data);
          else if (event.type === 'document') {
            if (event.data.error) setFailures((list) => [...list, { document_id: event.data.document_id, error: event.data.error! }]);
          } else {
            setOutcome(event.type === 'completed' ? 'Completed.' : event.type === 'cancelled' ? 'Cancelled.' : `Failed: ${event.data.error ?? 'see the failures'}`);
            // The bar stays at the final count until the Run form opens again (a short run's bar reaches 100, not
            // vanishes).
            setProgress(event.data.progress);
            setRunning(null);
            void refresh();
          }
        },
        onError: (failure) => setError(`Lost the progress stream: ${errorMessage(failure)}`),
      },
    ),
  );

  const start = useMutation(trpc.evals.iterations.createInBackground.mutationOptions());
  const cancel = useMutation(trpc.evals.iterations.cancel.mutationOptions());

  function follow(iteration: IterationSummary) {
    setProgress(iteration.progress);
    setFailures([]);
    setOutcome(null);
    setError(null);
    setRunning(iteration.id);
    void refresh();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = Number(temperature);
    try {
      const iteration = await start.mutateAsync({
        evaluation_id: props.evaluationId,
        inference_settings: { model: model.trim(), ...(temperature.trim() !== '' && Number.isFinite(value) ? { temperature: value } : {}) },
      });
      setOpen(false);
      follow(iteration);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  async function rerunFailed(iteration: IterationSummary) {
    setError(null);
    try {
      const failed: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await client.evals.iterations.predictions.query({ evaluation_id: props.evaluationId, iteration_id: iteration.id, limit: 1000, ...(after ? { after } : {}) });
        failed.push(...page.data.filter((prediction) => prediction.status === 'failed').map((prediction) => prediction.document_id));
        after = page.list_metadata.after ?? undefined;
        if (!after || page.data.length === 0) break;
      }
      if (failed.length === 0) {
        setOutcome('No failed document to re-run.');
        return;
      }
      follow(await client.evals.iterations.processInBackground.mutate({ evaluation_id: props.evaluationId, iteration_id: iteration.id, document_ids: failed }));
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  const done = shown ? shown.succeeded + shown.failed : 0;
  const percent = shown && shown.total > 0 ? Math.round((done / shown.total) * 100) : 0;
  const withFailures = props.iterations.filter((iteration) => iteration.progress.failed > 0 && iteration.status !== 'running' && iteration.status !== 'queued');

  return (
    <section aria-labelledby="run-title" className="panel">
      <div className="row">
        <h2 id="run-title" style={{ margin: 0, flex: 1 }}>
          Run
        </h2>
        {current === null && (
          <button type="button" className="primary" onClick={() => setOpen(!open)} aria-expanded={open}>
            Run iteration
          </button>
        )}
      </div>
      {open && current === null && (
        <form onSubmit={(event) => void submit(event)}>
          <label htmlFor={modelId}>Model</label>
          <input id={modelId} list={listId} value={model} onChange={(event) => setModel(event.target.value)} required autoComplete="off" aria-describedby={`${modelId}-hint`} />
          <datalist id={listId}>
            {models.data?.data.map((entry) => (
              <option key={`${entry.extractor}:${entry.id}`} value={entry.id}>
                {entry.pattern ? `any name matching ${entry.id} (${entry.provider ?? entry.extractor})` : (entry.provider ?? entry.extractor)}
              </option>
            ))}
          </datalist>
          <p id={`${modelId}-hint`} className="field-hint">
            Served here: {models.data?.data.map((entry) => entry.id).join(', ') ?? '…'} (a pattern such as <code>*</code> accepts any name). More
            providers: add a key in <Link to="/settings">Settings</Link>.
          </p>
          <label htmlFor={temperatureId}>Temperature</label>
          <input id={temperatureId} type="number" min={0} max={2} step={0.1} value={temperature} onChange={(event) => setTemperature(event.target.value)} />
          <p className="row" style={{ marginTop: '0.75rem' }}>
            <button type="submit" className="primary" disabled={start.isPending}>
              Start
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              Close
            </button>
          </p>
        </form>
      )}
      {error && <p role="alert">{error}</p>}
      {shown && (current !== null || !open) && (
        <div>
          <div role="progressbar" aria-label="Progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-valuetext={`${done} of ${shown.total} documents`} className="bar-track" style={{ width: '100%', height: '1rem' }}>
            <div className="bar" style={{ width: `${percent}%`, height: '100%' }} />
          </div>
          <p aria-live="polite">
            {done} of {shown.total} documents · {shown.failed} failed
            {summary.data ? ` · cost $${summary.data.usage.cost.toFixed(4)}` : ''}
          </p>
          {current !== null && (
            <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate({ evaluation_id: props.evaluationId, iteration_id: current })}>
              Cancel
            </button>
          )}
        </div>
      )}
      {outcome && <p aria-live="polite">{outcome}</p>}
      {failures.length > 0 && (
        <details open>
          <summary>{failures.length} failed documents</summary>
          <ul>
            {failures.map((failure) => (
              <li key={failure.document_id}>
                <Link to={`/evals/${encodeURIComponent(props.evaluationId)}/documents/${encodeURIComponent(failure.document_id)}`}>
                  {props.filenames.get(failure.document_id) ?? failure.document_id}
                </Link>
                : {failure.error}
              </li>
            ))}
          </ul>
        </details>
      )}
      {current === null &&
        withFailures.map((iteration) => (
          <p key={iteration.id} className="row">
            {iterationLabel(iteration)}: {iteration.progress.failed} failed
            <button type="button" onClick={() => void rerunFailed(iteration)}>
              Re-run failed documents of {iteration.inference_settings.model}
            </button>
          </p>
        ))}
    </section>
  );
}
