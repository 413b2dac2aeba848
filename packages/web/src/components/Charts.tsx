import { useQueries } from '@tanstack/react-query';
import { memo, useId, useMemo, useState } from 'react';
import { Link } from 'react-router';
import {
  Bar,
  BarChart,
  CartesianGrid,
  LabelList,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { AXIS, Figure, series, SimpleTable, TOOLTIP } from './ChartParts.js';
import { round, shortLabels } from '../chart-labels.js';
import { type MatrixData } from '../evaluation-data.js';
import { formatSimilarity, similarityColour } from '../similarity-colour.js';
import { useTRPC, type RouterOutputs } from '../trpc.js';

type IterationSummary = RouterOutputs['evals']['getSummary']['iterations'][number];
type LeaderboardRow = RouterOutputs['evals']['leaderboard']['rows'][number];
type IterationFields = RouterOutputs['evals']['iterations']['fields'];

/**
 * The reliability of the likelihoods an iteration's extractor reported: bins of likelihood with the share of exact
 * values in each. Not in the server's answer yet everywhere: typed here as optional, drawn only when present.
 */
export interface Calibration {
  ece: number;
  bins: Array<{ lower: number; upper: number; count: number; mean_likelihood: number; exact_rate: number }>;
}
type WithCalibration = Omit<IterationFields, 'fields'> & {
  calibration?: Calibration | null;
  fields: Array<IterationFields['fields'][number] & { calibration?: Calibration | null }>;
};

const BINS = 10;

/**
 * The evaluation's charts (recharts, SVG, loaded with this chunk only when the section opens): mean similarity over
 * the iterations, the distribution of document scores per iteration, the field × iteration heatmap, accuracy against
 * cost and duration, and the reliability diagram of the selected iteration when its likelihoods were scored.
 * The heatmap's fields (one `iterations.fields` per iteration: the server's costliest read at 10,000 documents) are
 * read once the matrix is (`matrix` defined), so that they do not hold the matrix's pages back. A memo: a change of
 * the page's URL (the matrix's filters) does not draw the charts again.
 */
export default memo(function Charts(props: {
  evaluationId: string;
  iterations: readonly IterationSummary[];
  leaderboard: readonly LeaderboardRow[];
  matrix: MatrixData | undefined;
  selectedId: string | null;
}) {
  const labels = useMemo(() => shortLabels(props.iterations), [props.iterations]);
  const label = (id: string) => labels.get(id) ?? id;
  if (props.iterations.length === 0) return <p className="muted">No iteration yet: the charts come with the first one.</p>;
  return (
    <div className="charts">
      <MeanOverIterations iterations={props.iterations} label={label} />
      <Distribution matrix={props.matrix} label={label} />
      <AccuracyVersus rows={props.leaderboard} label={label} by="cost" />
      <AccuracyVersus rows={props.leaderboard} label={label} by="duration" />
      <FieldHeatmap evaluationId={props.evaluationId} iterations={props.iterations} label={label} selectedId={props.selectedId} ready={props.matrix !== undefined} />
    </div>
  );
});

function MeanOverIterations(props: { iterations: readonly IterationSummary[]; label: (id: string) => string }) {
  const data = props.iterations.map((iteration) => ({
    name: props.label(iteration.id),
    mean: round(iteration.metric_results.mean_similarity),
    aligned: round(iteration.metric_results.aligned_mean_similarity),
  }));
  const first = data[0]!;
  const last = data.at(-1)!;
  const summary =
    data.length === 1
      ? `One iteration: mean ${first.mean.toFixed(3)}.`
      : `${data.length} iterations, oldest first: mean ${first.mean.toFixed(3)} (${first.name}) to ${last.mean.toFixed(3)} (${last.name}).`;
  return (
    <Figure
      title="Mean similarity over iterations"
      summary={summary}
      data={
        <SimpleTable
          label="Mean similarity over iterations"
          head={['Iteration', 'Mean', 'Aligned mean']}
          rows={data.map((row) => [row.name, row.mean.toFixed(3), row.aligned.toFixed(3)])}
        />
      }
    >
      <ResponsiveContainer width="100%" height={240}>
        <LineChart data={data} margin={{ top: 8, right: 24, bottom: 8, left: 0 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis dataKey="name" {...AXIS} />
          <YAxis domain={[0, 1]} {...AXIS} />
          <Tooltip {...TOOLTIP} />
          <Legend />
          <Line type="monotone" dataKey="mean" name="Mean similarity" stroke={series(0)} strokeWidth={2} isAnimationActive={false} />
          <Line type="monotone" dataKey="aligned" name="Aligned mean" stroke={series(1)} strokeDasharray="5 3" strokeWidth={2} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </Figure>
  );
}

/** Documents per score bin (0–0.1, …, 0.9–1.0) in each iteration; failed documents in their own bar. */
export function scoreBins(similarities: ReadonlyMap<string, number | null>): { bins: number[]; failed: number } {
  const bins = Array.from({ length: BINS }, () => 0);
  let failed = 0;
  for (const value of similarities.values()) {
    if (value === null) failed += 1;
    else bins[Math.min(BINS - 1, Math.floor(value * BINS))]! += 1;
  }
  return { bins, failed };
}

function Distribution(props: { matrix: MatrixData | undefined; label: (id: string) => string }) {
  const { matrix } = props;
  const data = useMemo(() => {
    if (!matrix) return [];
    const perIteration = matrix.iterations.map((iteration) => scoreBins(matrix.similarities.get(iteration.id) ?? new Map()));
    const rows: Array<Record<string, string | number>> = [];
    for (let bin = 0; bin < BINS; bin++) {
      const row: Record<string, string | number> = { bin: `${(bin / BINS).toFixed(1)}–${((bin + 1) / BINS).toFixed(1)}` };
      matrix.iterations.forEach((iteration, i) => (row[iteration.id] = perIteration[i]!.bins[bin]!));
      rows.push(row);
    }
    const failedRow: Record<string, string | number> = { bin: 'failed' };
    matrix.iterations.forEach((iteration, i) => (failedRow[iteration.id] = perIteration[i]!.failed));
    rows.push(failedRow);
    return rows;
  }, [matrix]);
  if (!matrix) return <p aria-busy="true">Loading the distribution…</p>;
  const top = matrix.iterations.map((iteration) => {
    const high = data.at(-2)?.[iteration.id] ?? 0;
    return `${props.label(iteration.id)}: ${high} of ${matrix.similarities.get(iteration.id)?.size ?? 0} at 0.9 or more`;
  });
  return (
    <Figure
      title="Document scores per iteration"
      summary={`Documents per similarity bin. ${top.join('; ')}.`}
      data={
        <SimpleTable
          label="Document scores per iteration"
          head={['Similarity', ...matrix.iterations.map((iteration) => props.label(iteration.id))]}
          rows={data.map((row) => [String(row.bin), ...matrix.iterations.map((iteration) => String(row[iteration.id]))])}
        />
      }
    >
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={data} margin={{ top: 8, right: 24, bottom: 8, left: 0 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis dataKey="bin" {...AXIS} />
          <YAxis allowDecimals={false} {...AXIS} />
          <Tooltip {...TOOLTIP} cursor={{ fill: 'var(--muted-bg)' }} />
          <Legend />
          {matrix.iterations.map((iteration, i) => (
            <Bar key={iteration.id} dataKey={iteration.id} name={props.label(iteration.id)} fill={series(i)} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </Figure>
  );
}

function AccuracyVersus(props: { rows: readonly LeaderboardRow[]; label: (id: string) => string; by: 'cost' | 'duration' }) {
  const points = props.rows
    .map((row) => ({
      name: props.label(row.iteration_id),
      // Imported iterations have no run: no cost, a duration of 0 (not a figure to plot).
      x: props.by === 'cost' ? row.cost : row.duration_ms === null || row.duration_ms === 0 ? null : row.duration_ms / 1000,
      mean: row.mean_similarity,
    }))
    .filter((point): point is { name: string; x: number; mean: number } => point.x !== null && point.mean !== null);
  const title = props.by === 'cost' ? 'Accuracy vs cost' : 'Accuracy vs duration';
  const unit = props.by === 'cost' ? 'cost ($)' : 'duration (s)';
  const format = (x: number) => (props.by === 'cost' ? `$${x.toFixed(4)}` : `${x.toFixed(1)} s`);
  if (points.length === 0) {
    return (
      <Figure title={title} summary={`No iteration has a ${props.by === 'cost' ? 'cost' : 'duration'} (imported iterations have none): run one to see it here.`}>
        {null}
      </Figure>
    );
  }
  const best = [...points].sort((a, b) => b.mean - a.mean)[0]!;
  return (
    <Figure
      title={title}
      summary={`Mean similarity against ${unit}, one point per iteration; best mean ${best.mean.toFixed(3)} (${best.name}) at ${format(best.x)}.`}
      data={<SimpleTable label={title} head={['Iteration', 'Mean similarity', unit]} rows={points.map((point) => [point.name, point.mean.toFixed(3), format(point.x)])} />}
    >
      <ResponsiveContainer width="100%" height={240}>
        <ScatterChart margin={{ top: 24, right: 48, bottom: 16, left: 8 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis type="number" dataKey="x" name={unit} {...AXIS} label={{ value: unit, position: 'insideBottom', offset: -8, fill: 'var(--fg)', fontSize: 12 }} />
          <YAxis type="number" dataKey="mean" name="mean similarity" domain={[0, 1]} {...AXIS} />
          <Tooltip {...TOOLTIP} />
          <Scatter data={points} fill={series(0)} isAnimationActive={false}>
            <LabelList dataKey="name" position="top" fill="var(--fg)" fontSize={11} />
          </Scatter>
        </ScatterChart>
      </ResponsiveContainer>
    </Figure>
  );
}

/**
 * Fields × iterations, the field's mean similarity in each cell (coloured and written): an HTML table, so that a
 * screen reader reads it as one. A cell links to the matrix narrowed to that field, worst documents first.
 */
function FieldHeatmap(props: { evaluationId: string; iterations: readonly IterationSummary[]; label: (id: string) => string; selectedId: string | null; ready: boolean }) {
  const trpc = useTRPC();
  const results = useQueries({
    queries: props.iterations.map((iteration) => ({
      ...trpc.evals.iterations.fields.queryOptions({ evaluation_id: props.evaluationId, iteration_id: iteration.id }),
      enabled: props.ready,
    })),
  });
  const byIteration = results.map((result) => result.data as WithCalibration | undefined);
  const fields = [...new Set(byIteration.flatMap((fields) => fields?.fields.map((field) => field.field) ?? []))].sort();
  const means = byIteration.map((fields) => new Map(fields?.fields.map((field) => [field.field, field.mean_similarity]) ?? []));
  const selectedIndex = props.iterations.findIndex((iteration) => iteration.id === props.selectedId);
  const selectedFields = byIteration[selectedIndex === -1 ? props.iterations.length - 1 : selectedIndex];
  const worst = fields
    .flatMap((field) => means.map((mean, i) => ({ field, i, value: mean.get(field) })))
    .filter((cell): cell is { field: string; i: number; value: number } => typeof cell.value === 'number')
    .sort((a, b) => a.value - b.value)[0];
  return (
    <>
      <Figure
        title="Fields × iterations"
        summary={
          worst
            ? `Mean similarity of each field in each iteration; the lowest: ${worst.field} in ${props.label(props.iterations[worst.i]!.id)} (${worst.value.toFixed(3)}). A cell opens the matrix on that field.`
            : 'Mean similarity of each field in each iteration.'
        }
      >
        {results.some((result) => result.isPending) ? (
          <p aria-busy="true">Loading the fields…</p>
        ) : (
          <HeatmapTable evaluationId={props.evaluationId} iterations={props.iterations} fields={fields} means={means} label={props.label} />
        )}
      </Figure>
      {selectedFields?.calibration && <Reliability fields={selectedFields} name={selectedIndex === -1 ? '' : props.label(props.iterations[selectedIndex]!.id) + ': '} />}
    </>
  );
}

/** The heatmap's table: a row per field, a column per iteration; each cell opens the matrix on that field. */
function HeatmapTable(props: { evaluationId: string; iterations: readonly IterationSummary[]; fields: string[]; means: Array<Map<string, number | null>>; label: (id: string) => string }) {
  const evalPath = `/evals/${encodeURIComponent(props.evaluationId)}`;
  return (
    <div className="heatmap-scroll">
      <table className="heatmap" aria-label="Fields × iterations">
        <thead>
          <tr>
            <th scope="col">Field</th>
            {props.iterations.map((iteration) => (
              <th scope="col" key={iteration.id} className="number" title={props.label(iteration.id)}>
                {props.label(iteration.id)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.fields.map((field) => (
            <tr key={field}>
              <th scope="row">
                <code>{field}</code>
              </th>
              {props.iterations.map((iteration, i) => {
                const value = props.means[i]!.get(field) ?? undefined;
                return (
                  <td key={iteration.id} className="number" style={{ background: similarityColour(value) }}>
                    <Link
                      to={`${evalPath}?${new URLSearchParams({ field, sort: iteration.id }).toString()}#matrix-title`}
                      aria-label={`${field} in ${props.label(iteration.id)}: ${formatSimilarity(value, 3)}; open its documents`}
                    >
                      {formatSimilarity(value, 3)}
                    </Link>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The reliability diagram of the selected iteration (all fields, or one), where likelihoods were scored. */
function Reliability(props: { fields: WithCalibration; name: string }) {
  const [calibrationField, setCalibrationField] = useState('');
  const selectId = useId();
  const calibration = calibrationField === '' ? props.fields.calibration : props.fields.fields.find((field) => field.field === calibrationField)?.calibration;
  return (
    <Figure
      title="Reliability diagram"
      summary={`${props.name}share of exact values against the mean likelihood, per likelihood bin; expected calibration error ${(calibration?.ece ?? 0).toFixed(3)}. On the diagonal, a likelihood means what it says.`}
      data={
        calibration ? (
          <SimpleTable
            label="Reliability bins"
            head={['Likelihood bin', 'Values', 'Mean likelihood', 'Exact rate']}
            rows={calibration.bins.map((bin) => [`${bin.lower.toFixed(1)}–${bin.upper.toFixed(1)}`, String(bin.count), bin.mean_likelihood?.toFixed(3) ?? '–', bin.exact_rate?.toFixed(3) ?? '–'])}
          />
        ) : undefined
      }
    >
      <div className="row">
        <label htmlFor={selectId} style={{ margin: 0 }}>
          Field
        </label>
        <select id={selectId} value={calibrationField} onChange={(event) => setCalibrationField(event.target.value)}>
          <option value="">All fields</option>
          {props.fields.fields
            .filter((field) => field.calibration)
            .map((field) => (
              <option key={field.field} value={field.field}>
                {field.field}
              </option>
            ))}
        </select>
      </div>
      {calibration ? (
        <ResponsiveContainer width="100%" height={260}>
          <LineChart data={calibration.bins.filter((bin) => bin.count > 0)} margin={{ top: 8, right: 24, bottom: 16, left: 0 }}>
            <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
            <XAxis type="number" dataKey="mean_likelihood" domain={[0, 1]} {...AXIS} label={{ value: 'mean likelihood', position: 'insideBottom', offset: -8, fill: 'var(--fg)', fontSize: 12 }} />
            <YAxis type="number" domain={[0, 1]} {...AXIS} />
            <Tooltip {...TOOLTIP} />
            <ReferenceLine segment={[{ x: 0, y: 0 }, { x: 1, y: 1 }]} stroke="var(--muted)" strokeDasharray="4 4" />
            <Line dataKey="exact_rate" name="Exact rate" stroke={series(0)} strokeWidth={2} isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      ) : (
        <p className="muted">No likelihood scored for this field.</p>
      )}
    </Figure>
  );
}
