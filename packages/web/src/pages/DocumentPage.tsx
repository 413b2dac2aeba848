import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { DocumentContent, DocumentFieldsTable, show, type PredictionWithMetrics } from '../components/DocumentFields.js';
import { GroundTruthEditor } from '../components/GroundTruthEditor.js';
import { SideBySide } from '../components/SideBySide.js';
import { iterationLabel, useMatrix } from '../evaluation-data.js';
import { loadCjkFontFor } from '../cjk.js';
import { formatSimilarity } from '../similarity-colour.js';
import { errorMessage, useTRPC } from '../trpc.js';

/**
 * `/evals/:evaluationId/documents/:documentId`: the document, its ground truth next to an iteration's prediction
 * field by field (similarity, aligned similarity, a character diff for strings), and the ground truth's editor:
 * a save refreshes every iteration's metrics on the server and every figure on screen.
 */
export function DocumentPage() {
  const { evaluationId = '', documentId = '' } = useParams();
  const trpc = useTRPC();
  const document = useQuery(trpc.evals.documents.get.queryOptions({ evaluation_id: evaluationId, document_id: documentId }));
  // The evaluation's summary: its schema (the ground-truth form) and its iterations' summaries, in one read.
  const summary = useQuery(trpc.evals.getSummary.queryOptions({ evaluation_id: evaluationId }));
  const list = summary.data?.iterations ?? [];
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

  // Ground truth or a prediction in Japanese gets the CJK font too (the content's text: DocumentContent).
  const annotationText = document.data ? JSON.stringify(document.data.annotation) : undefined;
  useEffect(() => loadCjkFontFor(annotationText), [annotationText]);
  const chosenIteration = list.find((iteration) => iteration.id === iterationId);

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
        <DocumentFieldsTable annotation={data?.annotation} prediction={p} />
      </section>

      <SideBySide evaluationId={evaluationId} documentId={documentId} annotation={data?.annotation} iterations={list} />

      <section aria-labelledby="edit-title">
        <h2 id="edit-title">Ground truth</h2>
        <GroundTruthEditor
          key={documentId}
          evaluationId={evaluationId}
          documentId={documentId}
          annotation={data?.annotation}
          schema={summary.data?.json_schema}
          prediction={p?.status === 'succeeded' && chosenIteration ? { value: p.prediction, label: iterationLabel(chosenIteration) } : null}
          hint={<NextUnlabeled evaluationId={evaluationId} documentId={documentId} />}
        />
      </section>
    </>
  );
}


/** Whether a key press is typing (in a text box, a select, an editable element) rather than a shortcut. */
function typing(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  return !!target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * The keyboard flow of annotation: the next document without ground truth after this one in the evaluation's order
 * (from the top again after the last), as a link, and the key N (outside text boxes) that follows it. Read from the
 * matrix's data (each document's `labeled`), which a save reads again.
 */
function NextUnlabeled(props: { evaluationId: string; documentId: string }) {
  const matrix = useMatrix(props.evaluationId);
  const navigate = useNavigate();
  const documents = matrix.data?.documents ?? [];
  const here = documents.findIndex((document) => document.id === props.documentId);
  const next = [...documents.slice(here + 1), ...documents.slice(0, Math.max(here, 0))].find((document) => !document.labeled);
  const to = next ? `/evals/${encodeURIComponent(props.evaluationId)}/documents/${encodeURIComponent(next.id)}` : null;
  useEffect(() => {
    if (to === null) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() !== 'n' || event.ctrlKey || event.metaKey || event.altKey || typing(event)) return;
      event.preventDefault();
      void navigate(to);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [to, navigate]);
  if (matrix.isPending) return null;
  if (!next || to === null) return <span className="field-hint">Every other document has ground truth.</span>;
  return (
    <span className="field-hint">
      <Link to={to} aria-keyshortcuts="n">
        Next unlabeled document: {next.filename}
      </Link>{' '}
      (press <kbd>N</kbd>)
    </span>
  );
}

