import { alignPrediction, type JsonValue } from '@docevals/core';
import { diffChars } from 'diff';
import { useEffect, useMemo, useState } from 'react';
import { DataTable } from './DataTable.js';
import { loadCjkFontFor } from '../cjk.js';
import { dataUrlText, parseDataUrl } from '../data-url.js';
import { formatSimilarity, similarityColour } from '../similarity-colour.js';
import { byText, createAppColumnHelper, figureColumn, useAppTable } from '../table.js';
import type { RouterOutputs } from '../trpc.js';

export type PredictionWithMetrics = RouterOutputs['evals']['iterations']['predictions']['data'][number];

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

export const show = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

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
export function DocumentContent({ url, filename }: { url: string; filename: string }) {
  // Media types may carry parameters (`data:text/plain;charset=utf-8;base64,...`): the text is read in its charset.
  const parsed = useMemo(() => parseDataUrl(url), [url]);
  const text = useMemo(() => {
    if (!parsed) return undefined;
    const { type } = parsed;
    return type.startsWith('text/') || type.includes('json') || type.includes('xml') || type.includes('html') ? dataUrlText(parsed) : undefined;
  }, [parsed]);
  useEffect(() => loadCjkFontFor(text), [text]);
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
  if (text !== undefined) return <pre className="panel" style={{ whiteSpace: 'pre-wrap', maxHeight: '40vh', overflow: 'auto' }}>{text}</pre>;
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
export function Predicted({ truth, predicted }: { truth: unknown; predicted: unknown }) {
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
export function DocumentFieldsTable(props: { annotation: unknown; prediction: PredictionWithMetrics | null | undefined }) {
  const { rows, showAligned } = useMemo(() => fieldRowsOf(props.annotation, props.prediction), [props.annotation, props.prediction]);
  const table = useAppTable({ columns: showAligned ? fieldColumnsAligned : fieldColumns, data: rows, getRowId: (row) => row.path });
  return <DataTable table={table} label="Fields" />;
}
