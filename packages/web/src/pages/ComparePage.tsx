import { useQuery } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useEditSearch } from '../search-params.js';
import { DataTable } from '../components/DataTable.js';
import { TableHead } from '../components/Panel.js';
import { iterationLabel, useFieldScores, useMatrix } from '../evaluation-data.js';
import { formatSimilarity } from '../similarity-colour.js';
import { byText, createAppColumnHelper, figureColumn, figureSorting, useAppTable } from '../table.js';
import { errorMessage, useTRPC, type RouterOutputs } from '../trpc.js';

type Comparison = RouterOutputs['evals']['compare'];
type FieldDelta = Comparison['fields'][number];
type DocumentDelta = Comparison['regressed'][number];

/** A signed figure: `+0.125`, `-0.500`, `–` for none. */
function signed(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return `${value > 0 ? '+' : ''}${value.toFixed(digits)}`;
}

/** Fields worst regression first: the most negative delta, then those without a delta (missing on one side). */
function worstFirst(fields: readonly FieldDelta[]): FieldDelta[] {
  return [...fields].sort((a, b) => (a.delta ?? Infinity) - (b.delta ?? Infinity) || a.field.localeCompare(b.field));
}

/**
 * `/evals/:evaluationId/compare?base=ITER&head=ITER`: what changed from `base` to `head` (the core's comparison,
 * docs/spec/analysis.md): overall deltas, field deltas worst regression first (table and a diverging bar chart),
 * regressed and improved documents, and the documents left out because one side has no succeeded prediction.
 */
export function ComparePage() {
  const { evaluationId = '' } = useParams();
  const [search] = useSearchParams();
  const editSearch = useEditSearch();
  const trpc = useTRPC();
  const base = search.get('base') ?? '';
  const head = search.get('head') ?? '';
  const [threshold, setThreshold] = useState(Number(search.get('threshold') ?? '0.01'));
  const thresholdId = useId();
  const comparison = useQuery({
    ...trpc.evals.compare.queryOptions({ evaluation_id: evaluationId, base, head, threshold }),
    enabled: base !== '' && head !== '',
  });
  const evalPath = `/evals/${encodeURIComponent(evaluationId)}`;
  const summary = useQuery(trpc.evals.getSummary.queryOptions({ evaluation_id: evaluationId }));
  const names = useMemo(() => new Map(summary.data?.iterations.map((iteration) => [iteration.id, iterationLabel(iteration)]) ?? []), [summary.data]);

  return (
    <>
      <p>
        <Link to={evalPath}>Back to the evaluation</Link>
      </p>
      <h1>Compare iterations</h1>
      <p className="muted">
        base <strong>{names.get(base) ?? (base || '?')}</strong> → head <strong>{names.get(head) ?? (head || '?')}</strong>
      </p>
      <div className="row">
        <label htmlFor={thresholdId}>Threshold</label>
        <input
          id={thresholdId}
          type="number"
          min={0}
          max={1}
          step={0.01}
          value={threshold}
          onChange={(event) => {
            const value = Number(event.target.value);
            if (Number.isFinite(value) && value >= 0 && value <= 1) {
              setThreshold(value);
              editSearch((next) => next.set('threshold', String(value)), { replace: false });
            }
          }}
        />
        <span className="field-hint">a document whose similarity moved less than this counts as unchanged</span>
      </div>
      {(base === '' || head === '') && <p role="alert">Choose two iterations on the evaluation page to compare them.</p>}
      {comparison.error && <p role="alert">Cannot compare: {errorMessage(comparison.error)}</p>}
      {comparison.isPending && base !== '' && head !== '' && <p>Comparing…</p>}
      {comparison.data && <ComparisonView comparison={comparison.data} evalPath={evalPath} />}
      {comparison.data && search.get('field') && (
        <FieldDocuments evaluationId={evaluationId} base={base} head={head} field={search.get('field')!} threshold={threshold} evalPath={evalPath} />
      )}
    </>
  );
}

const deltaHelper = createAppColumnHelper<FieldDelta>();
/** Worst regression first (the order `worstFirst` gives, the chart's): the table's first order says so. */
const deltaOrder = { sorting: [{ id: 'delta', desc: false }] };
const deltaColumns = deltaHelper.columns([
  deltaHelper.accessor('field', { header: 'Field', meta: { rowHeader: true }, sortFn: byText, sortDescFirst: false, cell: ({ getValue }) => <FieldLink field={getValue()} /> }),
  figureColumn<FieldDelta>({ id: 'base_mean', header: 'Base mean', value: (field) => field.base_mean, first: 'asc', format: (value) => formatSimilarity(value, 3) }),
  figureColumn<FieldDelta>({ id: 'head_mean', header: 'Head mean', value: (field) => field.head_mean, first: 'asc', format: (value) => formatSimilarity(value, 3) }),
  figureColumn<FieldDelta>({ id: 'delta', header: 'Delta', value: (field) => field.delta, first: 'asc', format: (value) => signed(value) }),
  figureColumn<FieldDelta>({ id: 'aligned_delta', header: 'Aligned delta', value: (field) => field.aligned_delta, first: 'asc', format: (value) => signed(value) }),
  deltaHelper.display({ id: 'significance', header: '95% interval', cell: ({ row }) => <Significance paired={row.original.paired} /> }),
  deltaHelper.accessor('documents', { header: 'Documents', meta: { numeric: true }, ...figureSorting('desc') }),
]);

type Paired = FieldDelta['paired'];

/** A paired delta's 95% interval, and whether it excludes 0 (marked, and said in words for screen readers). */
function Significance({ paired }: { paired: Paired | undefined }) {
  if (!paired) return <span className="muted">–</span>;
  const range = `[${signed(paired.ci_low)}, ${signed(paired.ci_high)}]`;
  return paired.significant ? (
    <strong className="significant" title="The 95% paired bootstrap interval excludes 0">
      {range} significant
    </strong>
  ) : (
    <span className="muted">{range} not significant</span>
  );
}

/** A field of the deltas table: a link to its documents, worst first (`?field=` on this page: a view to share). */
function FieldLink({ field }: { field: string }) {
  const [search] = useSearchParams();
  const next = new URLSearchParams(search);
  next.set('field', field);
  return (
    <Link to={`?${next.toString()}#field-documents-title`} aria-label={`${field}: its documents, worst first`} aria-current={search.get('field') === field ? 'true' : undefined}>
      <code>{field}</code>
    </Link>
  );
}

/** The field deltas, worst regression first (rows in `worstFirst` order); sortable by each column. */
function FieldDeltasTable({ fields }: { fields: readonly FieldDelta[] }) {
  const table = useAppTable({ columns: deltaColumns, data: fields, getRowId: (field) => field.field, initialState: deltaOrder });
  return <DataTable table={table} label="Field deltas" />;
}

function ComparisonView({ comparison, evalPath }: { comparison: Comparison; evalPath: string }) {
  const fields = useMemo(() => worstFirst(comparison.fields), [comparison.fields]);
  return (
    <>
      <section aria-labelledby="overall-title">
        <h2 id="overall-title">Overall</h2>
        <table aria-label="Overall deltas">
          <DeltaHead first="Measure" last="95% interval" />
          <tbody>
            {(
              [
                ['Mean similarity', comparison.mean_similarity, 3],
                ['Aligned mean similarity', comparison.aligned_mean_similarity, 3],
                ['Cost', comparison.cost, 4],
                ['Failures', comparison.failures, 0],
              ] as const
            ).map(([name, figure, digits]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td className="number">{figure.base === null ? '–' : figure.base.toFixed(digits)}</td>
                <td className="number">{figure.head === null ? '–' : figure.head.toFixed(digits)}</td>
                <td className="number">{signed(figure.delta, digits)}</td>
                <td>{'paired' in figure && figure.paired !== undefined ? <Significance paired={figure.paired} /> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">
          {comparison.compared_documents} labeled documents compared (finished in both, a failure counting 0); head: {comparison.head_counts.failed} failed,{' '}
          {comparison.head_counts.unlabeled} unlabeled, {comparison.head_counts.pending} pending; threshold {comparison.threshold}.
        </p>
      </section>

      <section aria-labelledby="fields-title">
        <h2 id="fields-title">Fields</h2>
        <FieldDeltaChart fields={fields} />
        <FieldDeltasTable fields={fields} />
      </section>

      <section aria-labelledby="documents-title">
        <h2 id="documents-title">Documents</h2>
        <DocumentList name="Regressed documents" documents={comparison.regressed} evalPath={evalPath} />
        <DocumentList name="Improved documents" documents={comparison.improved} evalPath={evalPath} />
        {comparison.excluded.length > 0 && (
          <>
            <h3 id="excluded-title">Not compared ({comparison.excluded.length})</h3>
            <ul aria-labelledby="excluded-title">
              {comparison.excluded.map((document) => (
                <li key={document.document_id}>
                  <Link to={`${evalPath}/documents/${encodeURIComponent(document.document_id)}`}>{document.filename}</Link>{' '}
                  <span className="muted">
                    base {document.base_status}, head {document.head_status}
                  </span>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </>
  );
}

function DocumentList({ name, documents, evalPath }: { name: string; documents: readonly DocumentDelta[]; evalPath: string }) {
  const id = useId();
  return (
    <>
      <h3 id={id}>
        {name} ({documents.length})
      </h3>
      {documents.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul aria-labelledby={id}>
          {documents.map((document) => (
            <li key={document.document_id}>
              <Link to={`${evalPath}/documents/${encodeURIComponent(document.document_id)}`}>{document.filename}</Link>{' '}
              <span className="muted">
                {document.base_similarity.toFixed(3)} → {document.head_similarity.toFixed(3)} ({signed(document.delta)})
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

const ROW = 22;
const LABEL = 220;
const HALF = 220;

/**
 * The field deltas as a diverging bar chart (SVG, no library: a bar per field, left of the axis for a regression,
 * right for an improvement, from -1 to +1). The table below it carries the same numbers for screen readers.
 */
function FieldDeltaChart({ fields }: { fields: readonly FieldDelta[] }) {
  const withDelta = fields.filter((field) => field.delta !== null);
  const worst = withDelta[0];
  const description = worst
    ? `Field deltas chart: ${withDelta.length} fields; largest regression ${worst.field} ${signed(worst.delta)}`
    : 'Field deltas chart: no field has a delta';
  const height = Math.max(1, withDelta.length) * ROW + 24;
  return (
    <svg role="img" aria-label={description} width={LABEL + HALF * 2 + 60} height={height} className="delta-chart">
      <line x1={LABEL + HALF} x2={LABEL + HALF} y1={0} y2={height - 20} stroke="currentColor" strokeOpacity={0.5} />
      {withDelta.map((field, i) => {
        const delta = Math.max(-1, Math.min(1, field.delta!));
        const width = Math.max(1, Math.abs(delta) * HALF);
        const x = delta < 0 ? LABEL + HALF - width : LABEL + HALF;
        const y = i * ROW + 4;
        return (
          <g key={field.field}>
            <text x={LABEL - 8} y={y + 13} textAnchor="end" fontSize={12} fill="currentColor">
              {field.field}
            </text>
            <rect x={x} y={y} width={width} height={ROW - 8} fill={delta < 0 ? 'var(--danger)' : 'var(--success, #2e7d32)'} />
            <text x={delta < 0 ? LABEL + HALF + 4 : x + width + 4} y={y + 13} fontSize={11} fill="currentColor">
              {signed(field.delta)}
            </text>
          </g>
        );
      })}
      <text x={LABEL} y={height - 4} fontSize={11} fill="currentColor">
        −1 (worse)
      </text>
      <text x={LABEL + HALF * 2} y={height - 4} fontSize={11} textAnchor="end" fill="currentColor">
        +1 (better)
      </text>
    </svg>
  );
}

interface FieldDocument {
  id: string;
  filename: string;
  base: number | undefined;
  head: number | undefined;
  delta: number | undefined;
}

/**
 * The documents behind a field's delta, worst first: the field's score in each document on both sides (the
 * iterations' metrics, read once per iteration), the largest drop first, then the documents scored on one side
 * only. Those whose score moved by less than the threshold are counted, not listed.
 */
function FieldDocuments(props: { evaluationId: string; base: string; head: string; field: string; threshold: number; evalPath: string }) {
  const matrix = useMatrix(props.evaluationId);
  const ids = useMemo(() => [props.base, props.head], [props.base, props.head]);
  const documentIds = useMemo(() => matrix.data?.documents.map((document) => document.id) ?? null, [matrix.data]);
  const { scores, pending, error } = useFieldScores(props.evaluationId, ids, props.field, documentIds);
  const rows = useMemo(() => {
    const base = scores.get(props.base);
    const head = scores.get(props.head);
    const out: FieldDocument[] = [];
    for (const document of matrix.data?.documents ?? []) {
      const b = base?.get(document.id);
      const h = head?.get(document.id);
      if (b === undefined && h === undefined) continue;
      out.push({ id: document.id, filename: document.filename, base: b, head: h, delta: b !== undefined && h !== undefined ? h - b : undefined });
    }
    return out.sort((a, b) => (a.delta ?? Infinity) - (b.delta ?? Infinity) || (a.head ?? 1) - (b.head ?? 1) || a.filename.localeCompare(b.filename));
  }, [scores, props.base, props.head, matrix.data]);
  const changed = rows.filter((row) => row.delta === undefined || Math.abs(row.delta) >= props.threshold);
  const unchanged = rows.length - changed.length;
  return (
    <section aria-labelledby="field-documents-title">
      <h2 id="field-documents-title">
        Documents behind <code>{props.field}</code>, worst first
      </h2>
      {error && <p role="alert">Cannot read the scores: {errorMessage(error)}</p>}
      {matrix.error && <p role="alert">Cannot read the documents: {errorMessage(matrix.error)}</p>}
      {pending || matrix.isPending ? (
        <p aria-busy="true">Reading the field's scores…</p>
      ) : (
        <>
          <table aria-label={`Documents behind ${props.field}`}>
            <DeltaHead first="Document" />
            <tbody>
              {changed.length === 0 && (
                <tr>
                  <td colSpan={4} className="muted">
                    No document moved by {props.threshold} or more on this field.
                  </td>
                </tr>
              )}
              {changed.map((row) => (
                <tr key={row.id}>
                  <th scope="row">
                    <Link to={`${props.evalPath}/documents/${encodeURIComponent(row.id)}?${new URLSearchParams({ compare: `${props.base},${props.head}` }).toString()}`}>{row.filename}</Link>
                  </th>
                  <td className="number">{formatSimilarity(row.base, 3)}</td>
                  <td className="number">{formatSimilarity(row.head, 3)}</td>
                  <td className="number">{signed(row.delta)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted">
            {unchanged} more {unchanged === 1 ? 'document' : 'documents'} scored on this field moved by less than {props.threshold}.
          </p>
        </>
      )}
    </section>
  );
}

/** The header of a table of base / head / delta figures: what the rows are, the three figures, and one more column. */
function DeltaHead(props: { first: string; last?: string }) {
  return <TableHead columns={[props.first, 'Base#', 'Head#', 'Delta#', ...(props.last ? [props.last] : [])]} />;
}
