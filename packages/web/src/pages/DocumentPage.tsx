import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { alignPrediction, type JsonValue } from '@docevals/core';
import { diffChars } from 'diff';
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useEditSearch } from '../search-params.js';
import { DataTable } from '../components/DataTable.js';
import { formatSimilarity, similarityColour } from '../similarity-colour.js';
import { byText, createAppColumnHelper, figureColumn, useAppTable } from '../table.js';
import { errorMessage, useTRPC, useTRPCClient, type RouterOutputs } from '../trpc.js';
import { iterationLabel } from '../evaluation-data.js';

type PredictionWithMetrics = RouterOutputs['evals']['iterations']['predictions']['data'][number];

/** A JSON value's leaves by dotted path (`line_items.0.amount`), the paths of the metrics' `flat_similarities`. */
export function flatten(value: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    if (entries.length === 0 && prefix) out[prefix] = value;
    for (const [key, child] of entries) flatten(child, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) {
    out[prefix] = value;
  }
  return out;
}

/** The prediction's leaves after the metric's list alignment against the truth; null if it cannot be computed. */
function alignedLeaves(annotation: unknown, prediction: unknown): Record<string, unknown> | null {
  try {
    return flatten(alignPrediction(annotation as JsonValue, prediction as JsonValue));
  } catch {
    return null;
  }
}

const show = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** The annotation's text against the prediction's, letter by letter: removed in the truth's colour, added struck. */
function CharacterDiff({ truth, predicted }: { truth: string; predicted: string }) {
  if (truth === predicted) return <>{predicted}</>;
  return (
    <span aria-label={`predicted ${predicted}, differs from ${truth}`}>
      {diffChars(truth, predicted).map((part, i) =>
        part.added ? (
          <ins key={i} className="diff-added">
            {part.value}
          </ins>
        ) : part.removed ? (
          <del key={i} className="diff-removed">
            {part.value}
          </del>
        ) : (
          <span key={i}>{part.value}</span>
        ),
      )}
    </span>
  );
}

/** The document's content from its data URL: text shown, images shown, PDFs in the browser's viewer (a blob URL). */
function DocumentContent({ url, filename }: { url: string; filename: string }) {
  const parsed = useMemo(() => {
    const match = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
    if (!match) return null;
    const type = match[1] || 'application/octet-stream';
    const bytes = match[2] ? Uint8Array.from(atob(match[3]!), (c) => c.charCodeAt(0)) : new TextEncoder().encode(decodeURIComponent(match[3]!));
    return { type, bytes };
  }, [url]);
  const [blobUrl, setBlobUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!parsed || !(parsed.type === 'application/pdf' || parsed.type.startsWith('image/'))) return;
    const created = URL.createObjectURL(new Blob([parsed.bytes], { type: parsed.type }));
    // An external resource made and revoked with the effect (StrictMode's re-run gets a fresh one), so its URL is state.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setBlobUrl(created);
    return () => URL.revokeObjectURL(created);
  }, [parsed]);
  if (!parsed) return <p className="muted">The content is not a data URL and is not shown here.</p>;
  if (parsed.type.startsWith('image/')) return blobUrl ? <img src={blobUrl} alt={filename} style={{ maxWidth: '100%' }} /> : null;
  if (parsed.type === 'application/pdf') {
    return blobUrl ? <iframe title={`${filename} (PDF)`} src={blobUrl} style={{ width: '100%', height: '70vh', border: 0 }} /> : null;
  }
  if (parsed.type.startsWith('text/') || parsed.type.includes('json') || parsed.type.includes('xml') || parsed.type.includes('html')) {
    return <pre className="panel" style={{ whiteSpace: 'pre-wrap', maxHeight: '40vh', overflow: 'auto' }}>{new TextDecoder().decode(parsed.bytes)}</pre>;
  }
  return <p className="muted">{parsed.type}: {parsed.bytes.length} bytes (no preview).</p>;
}

/** One leaf path of the ground truth or the prediction: a row of the table "Fields". */
interface FieldRow {
  path: string;
  truth: unknown;
  predicted: unknown;
  /** The prediction's leaf after the list alignment (shown when that differs from the order given). */
  alignedPrediction: unknown;
  similarity: number | undefined;
  alignedSimilarity: number | undefined;
}

/** A predicted leaf: as a character diff against the truth when both are strings. */
function Predicted({ truth, predicted }: { truth: unknown; predicted: unknown }) {
  return typeof truth === 'string' && typeof predicted === 'string' ? <CharacterDiff truth={truth} predicted={predicted} /> : <>{show(predicted)}</>;
}

const fieldHelper = createAppColumnHelper<FieldRow>();
const pathColumn = fieldHelper.accessor('path', { header: 'Field', meta: { rowHeader: true }, sortFn: byText, sortDescFirst: false, cell: ({ getValue }) => <code>{getValue()}</code> });
const truthColumn = fieldHelper.display({ id: 'truth', header: 'Ground truth', cell: ({ row }) => show(row.original.truth) });
const predictionColumn = fieldHelper.display({
  id: 'prediction',
  header: 'Prediction',
  cell: ({ row: { original } }) => <Predicted truth={original.truth} predicted={original.predicted} />,
});
const alignedPredictionColumn = fieldHelper.display({
  id: 'aligned_prediction',
  header: 'Prediction, list items aligned',
  cell: ({ row: { original } }) => <Predicted truth={original.truth} predicted={original.alignedPrediction} />,
});
const threeDigits = (value: number | undefined) => formatSimilarity(value, 3);
const similarityColumns = fieldHelper.columns([
  figureColumn<FieldRow>({
    id: 'similarity',
    header: 'Similarity',
    value: (row) => row.similarity,
    first: 'asc',
    format: threeDigits,
    look: { cellAttributes: (value) => ({ style: { background: similarityColour(typeof value === 'number' ? value : undefined) } }) },
  }),
  figureColumn<FieldRow>({ id: 'alignedSimilarity', header: 'Aligned', value: (row) => row.alignedSimilarity, first: 'asc', format: threeDigits }),
]);
/** The columns without and with "Prediction, list items aligned". */
const fieldColumns = fieldHelper.columns([pathColumn, truthColumn, predictionColumn, ...similarityColumns]);
const fieldColumnsAligned = fieldHelper.columns([pathColumn, truthColumn, predictionColumn, alignedPredictionColumn, ...similarityColumns]);

/**
 * Every leaf path of the ground truth and of the prediction, in path order, and whether the prediction's list items
 * aligned differ from the order given (then they have their own column).
 */
function fieldRowsOf(annotation: unknown, p: PredictionWithMetrics | null | undefined): { rows: FieldRow[]; showAligned: boolean } {
  const truth = flatten(annotation ?? {});
  const predicted = flatten(p?.prediction ?? {});
  // List items as the aligned metric paired them (docs/spec/metrics.md section 4): the prediction's item matched to
  // the truth's item i stands at index i. Shown as its own column only where it differs from the order given.
  const alignedPrediction = annotation !== undefined && p && p.status === 'succeeded' ? alignedLeaves(annotation, p.prediction) : null;
  const showAligned = alignedPrediction !== null && JSON.stringify(alignedPrediction) !== JSON.stringify(predicted);
  const similarities = p?.metrics.flat_similarities ?? {};
  const aligned = p?.metrics.aligned_flat_similarities ?? {};
  const paths = [
    ...new Set([...Object.keys(truth), ...Object.keys(predicted), ...Object.keys(similarities), ...Object.keys(alignedPrediction ?? {})]),
  ].sort();
  const rows = paths.map((path) => ({
    path,
    truth: truth[path],
    predicted: predicted[path],
    alignedPrediction: alignedPrediction?.[path],
    similarity: similarities[path],
    alignedSimilarity: aligned[path],
  }));
  return { rows, showAligned };
}

/** The table "Fields": in path order; sortable by path and by (aligned) similarity, worst first on the first click. */
function FieldsTable(props: { annotation: unknown; prediction: PredictionWithMetrics | null | undefined }) {
  const { rows, showAligned } = useMemo(() => fieldRowsOf(props.annotation, props.prediction), [props.annotation, props.prediction]);
  const table = useAppTable({ columns: showAligned ? fieldColumnsAligned : fieldColumns, data: rows, getRowId: (row) => row.path });
  return <DataTable table={table} label="Fields" />;
}

/**
 * `/evals/:evaluationId/documents/:documentId`: the document, its ground truth next to an iteration's prediction
 * field by field (similarity, aligned similarity, a character diff for strings), and the ground truth's editor:
 * a save refreshes every iteration's metrics on the server and every figure on screen.
 */
export function DocumentPage() {
  const { evaluationId = '', documentId = '' } = useParams();
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const document = useQuery(trpc.evals.documents.get.queryOptions({ evaluation_id: evaluationId, document_id: documentId }));
  const iterations = useQuery(trpc.evals.iterations.listSummaries.queryOptions({ evaluation_id: evaluationId }));
  const list = iterations.data?.data ?? [];
  const [chosen, setChosen] = useState<string | null>(null);
  const iterationId = chosen ?? list.at(-1)?.id ?? null;
  const iterationSelect = useId();

  // The document's prediction in the chosen iteration: one request, which the server answers by reading this
  // document's prediction alone (`document_ids`), however many documents the evaluation holds.
  const prediction = useQuery({
    ...trpc.evals.iterations.predictions.queryOptions({ evaluation_id: evaluationId, iteration_id: iterationId ?? '', document_ids: [documentId], limit: 1 }),
    enabled: iterationId !== null,
    select: (page): PredictionWithMetrics | null => page.data[0] ?? null,
  });

  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const editorId = useId();
  const save = useMutation({
    mutationFn: (annotation: Record<string, unknown>) =>
      client.evals.documents.update.mutate({ evaluation_id: evaluationId, document_id: documentId, annotation }),
    onSuccess: async () => {
      setProblem(null);
      setEditing(false);
      // Every iteration's metrics changed on the server: every figure on screen is read again.
      await queryClient.invalidateQueries();
    },
    onError: (error) => setProblem(errorMessage(error)),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    let value: unknown;
    try {
      value = JSON.parse(draft);
    } catch (error) {
      setProblem(`The annotation is not JSON: ${errorMessage(error)}`);
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      setProblem('The annotation must be a JSON object (at the root).');
      return;
    }
    save.mutate(value as Record<string, unknown>);
  }

  const evalPath = `/evals/${encodeURIComponent(evaluationId)}`;
  if (document.error) {
    return (
      <p role="alert">
        Cannot open this document: {errorMessage(document.error)} <Link to={evalPath}>Back to the evaluation</Link>
      </p>
    );
  }
  const data = document.data;
  const p = prediction.data;
  return (
    <>
      <p>
        <Link to={evalPath}>Back to the evaluation</Link>
      </p>
      <h1>{data?.mime_data.filename ?? 'Loading…'}</h1>
      {data && <DocumentContent url={data.mime_data.url} filename={data.mime_data.filename} />}

      <section aria-labelledby="fields-title">
        <h2 id="fields-title">Ground truth and prediction</h2>
        <div className="row">
          <label htmlFor={iterationSelect}>Iteration</label>
          <select id={iterationSelect} value={iterationId ?? ''} onChange={(event) => setChosen(event.target.value)}>
            {list.map((iteration) => (
              <option key={iteration.id} value={iteration.id}>
                {iterationLabel(iteration)}
              </option>
            ))}
          </select>
          {p && (
            <span>
              document similarity <strong>{formatSimilarity(p.metrics.similarity, 3)}</strong> (aligned{' '}
              {formatSimilarity(p.metrics.aligned_similarity, 3)}) · {p.status}
            </span>
          )}
        </div>
        {list.length === 0 && <p className="muted">No iteration has run on this evaluation yet.</p>}
        {prediction.error && <p role="alert">{errorMessage(prediction.error)}</p>}
        {p && p.status !== 'succeeded' && (
          <p className="notice">
            {p.status === 'failed' ? `The extraction failed: ${show(p.metadata?.error ?? 'no reason given')}` : 'Not run yet in this iteration.'}
          </p>
        )}
        <FieldsTable annotation={data?.annotation} prediction={p} />
      </section>

      <SideBySide evaluationId={evaluationId} documentId={documentId} annotation={data?.annotation} iterations={list} />

      <section aria-labelledby="edit-title">
        <h2 id="edit-title">Ground truth</h2>
        {!editing ? (
          <button
            type="button"
            disabled={!data}
            onClick={() => {
              setDraft(JSON.stringify(data?.annotation ?? {}, null, 2));
              setProblem(null);
              setEditing(true);
            }}
          >
            Edit ground truth
          </button>
        ) : (
          <form onSubmit={submit}>
            <label htmlFor={editorId}>Annotation</label>
            <textarea
              id={editorId}
              className="code"
              value={draft}
              spellCheck={false}
              onChange={(event) => setDraft(event.target.value)}
              aria-describedby={`${editorId}-hint`}
            />
            <p id={`${editorId}-hint`} className="field-hint">
              JSON, checked against the evaluation's JSON schema by the server when saved.
            </p>
            {p?.status === 'succeeded' && (
              <p>
                <button type="button" onClick={() => setDraft(JSON.stringify(p.prediction, null, 2))}>
                  Start from this iteration's prediction
                </button>{' '}
                <span className="field-hint">replaces the text with the prediction of {iterationId ? iterationLabel(list.find((iteration) => iteration.id === iterationId) ?? { id: iterationId }) : ''}: correct it, then save</span>
              </p>
            )}
            {problem && <p role="alert">{problem}</p>}
            <div className="row">
              <button type="submit" className="primary" disabled={save.isPending}>
                Save
              </button>
              <button type="button" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </div>
          </form>
        )}
      </section>
    </>
  );
}

type IterationSummary = RouterOutputs['evals']['iterations']['listSummaries']['data'][number];

/**
 * The document's predictions in N chosen iterations, one column each, against the ground truth, field by field: a
 * value that differs from the truth is highlighted (its character diff, its similarity written and coloured). The
 * chosen iterations are in the URL (`?compare=ITER,ITER,…`): a view to share. Each prediction is one request by
 * document id (the same as the single view's, so it is read once).
 */
function SideBySide(props: { evaluationId: string; documentId: string; annotation: unknown; iterations: readonly IterationSummary[] }) {
  const trpc = useTRPC();
  const [search] = useSearchParams();
  const editSearch = useEditSearch();
  const known = new Set(props.iterations.map((iteration) => iteration.id));
  const chosen = (search.get('compare') ?? '').split(',').filter((id) => id !== '' && (known.size === 0 || known.has(id)));
  const results = useQueries({
    queries: chosen.map((iterationId) => ({
      ...trpc.evals.iterations.predictions.queryOptions({ evaluation_id: props.evaluationId, iteration_id: iterationId, document_ids: [props.documentId], limit: 1 }),
      select: (page: { data: PredictionWithMetrics[] }): PredictionWithMetrics | null => page.data[0] ?? null,
    })),
  });
  const toggle = (id: string, on: boolean) =>
    editSearch((next) => {
      const current = (next.get('compare') ?? '').split(',');
      const ids = props.iterations.map((iteration) => iteration.id).filter((other) => (other === id ? on : current.includes(other)));
      if (ids.length === 0) next.delete('compare');
      else next.set('compare', ids.join(','));
    });
  const truth = flatten(props.annotation ?? {});
  const predictions = results.map((result) => result.data);
  const flats = predictions.map((prediction) => flatten(prediction?.prediction ?? {}));
  const paths = [...new Set([...Object.keys(truth), ...flats.flatMap((flat) => Object.keys(flat))])].sort();
  const labels = new Map(props.iterations.map((iteration) => [iteration.id, iterationLabel(iteration)]));
  return (
    <section aria-labelledby="side-title">
      <h2 id="side-title">Side by side</h2>
      <fieldset className="choices">
        <legend>Iterations to compare on this document</legend>
        {props.iterations.map((iteration) => (
          <label key={iteration.id} className="choice">
            <input type="checkbox" checked={chosen.includes(iteration.id)} onChange={(event) => toggle(iteration.id, event.target.checked)} /> {iterationLabel(iteration)}
          </label>
        ))}
      </fieldset>
      {chosen.length === 0 ? (
        <p className="muted">Choose iterations above to see their predictions in columns next to the ground truth.</p>
      ) : (
        <div className="side-scroll">
          <table aria-label="Side by side" className="side-by-side">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Ground truth</th>
                {chosen.map((id, i) => (
                  <th scope="col" key={id}>
                    {labels.get(id) ?? id}
                    <br />
                    <span className="muted">
                      {predictions[i] ? `${predictions[i]!.status} · ${formatSimilarity(predictions[i]!.metrics.similarity, 3)}` : results[i]?.isPending ? 'loading…' : ''}
                    </span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {paths.map((path) => (
                <tr key={path}>
                  <th scope="row">
                    <code>{path}</code>
                  </th>
                  <td>{show(truth[path])}</td>
                  {chosen.map((id, i) => {
                    const prediction = predictions[i];
                    const predicted = flats[i]![path];
                    const similarity = prediction?.metrics.flat_similarities[path];
                    const differs = prediction?.status === 'succeeded' && show(predicted) !== show(truth[path]);
                    return (
                      <td key={id} className={differs ? 'differs' : undefined} style={differs ? { background: similarityColour(similarity) } : undefined}>
                        {prediction?.status === 'failed' ? (
                          <span className="muted">failed</span>
                        ) : (
                          <>
                            <Predicted truth={truth[path]} predicted={predicted} />
                            {differs && <span className="similarity-note"> ({formatSimilarity(similarity, 2)})</span>}
                          </>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
