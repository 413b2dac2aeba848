import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { authHeaders } from '../auth.js';
import { AddDocuments } from '../components/AddDocuments.js';
import { FieldsTable, LeaderboardTable } from '../components/IterationTables.js';
import { MatrixSection } from '../components/MatrixSection.js';
import { RunSection } from '../components/RunSection.js';
import { iterationLabel, plural, useMatrix } from '../evaluation-data.js';
import { NO_ROWS } from '../table.js';
import { errorMessage, restUrl, useTRPC, type RouterOutputs } from '../trpc.js';

export { iterationLabel };

type IterationSummary = RouterOutputs['evals']['getSummary']['iterations'][number];

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
  const matrix = useMatrix(evaluationId);
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

      <RunSection evaluationId={evaluationId} iterations={list} filenames={filenames} matrix={matrix.data} />

      <AddDocuments evaluationId={evaluationId} />

      <section aria-labelledby="leaderboard-title">
        <h2 id="leaderboard-title">Leaderboard</h2>
        {leaderboard.error && <p role="alert">{errorMessage(leaderboard.error)}</p>}
        <LeaderboardTable evaluationId={evaluationId} rows={leaderboard.data?.rows} selectedId={selectedId} onSelect={setSelected} />
      </section>

      {selectedIteration && <ExportAndCompare evaluationId={evaluationId} iteration={selectedIteration} iterations={list} />}

      <section aria-labelledby="charts-title">
        <h2 id="charts-title">Charts</h2>
        {/* After the matrix's first rows: the charts' chunk (recharts) and their first drawing do not hold its paint back. */}
        {evaluation.data && (matrix.partial || matrix.error) ? (
          <Suspense fallback={<p aria-busy="true">Loading the charts…</p>}>
            <Charts evaluationId={evaluationId} iterations={list} leaderboard={leaderboard.data?.rows ?? NO_ROWS} matrix={matrix.data} selectedId={selectedId} />
          </Suspense>
        ) : (
          <p aria-busy="true">Loading the charts…</p>
        )}
      </section>

      <section aria-labelledby="matrix-title">
        <h2 id="matrix-title">Documents × iterations</h2>
        <MatrixSection evaluationId={evaluationId} matrix={matrix} />
      </section>

      <section aria-labelledby="fields-title">
        <h2 id="fields-title">Fields {selectedIteration ? `of ${iterationLabel(selectedIteration)}` : ''}</h2>
        {selectedId ? <FieldsTable evaluationId={evaluationId} iterationId={selectedId} enabled={matrix.data !== undefined} /> : <p className="muted">No iteration yet.</p>}
      </section>
    </>
  );
}

const NO_SUMMARIES: IterationSummary[] = [];

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

