// What the charts share: the theme's series colours, axis and tooltip styles, the figure around each chart and the
// table of its data. Imported by Charts.tsx only (its lazy chunk).
import { useId, type ReactNode } from 'react';

/** Colours of the series, from the theme's palette (CSS variables: light and dark). */
const SERIES = ['var(--chart-1)', 'var(--chart-2)', 'var(--chart-3)', 'var(--chart-4)', 'var(--chart-5)', 'var(--chart-6)'];
export const series = (i: number) => SERIES[i % SERIES.length]!;
export const AXIS = { stroke: 'var(--muted)', tick: { fill: 'var(--fg)', fontSize: 12 } } as const;
export const TOOLTIP = {
  contentStyle: { background: 'var(--bg)', border: '1px solid var(--border)', color: 'var(--fg)' },
  labelStyle: { color: 'var(--fg)' },
  itemStyle: { color: 'var(--fg)' },
} as const;
/** A chart in a `<figure>`: its title, a sentence that says what it shows (for everyone), the chart, its data. */
export function Figure(props: { title: string; summary: string; children: ReactNode; data?: ReactNode }) {
  const id = useId();
  return (
    <figure className="chart" aria-labelledby={id}>
      <figcaption id={id}>
        <strong>{props.title}</strong>
        <span className="muted"> {props.summary}</span>
      </figcaption>
      <div className="chart-body">{props.children}</div>
      {props.data && (
        <details>
          <summary>Data of “{props.title}”</summary>
          {props.data}
        </details>
      )}
    </figure>
  );
}

/** A chart's data as a table: the first column names the rows. */
export function SimpleTable(props: { label: string; head: string[]; rows: string[][] }) {
  return (
    <table aria-label={props.label}>
      <thead>
        <tr>
          {props.head.map((cell, i) => (
            <th key={i} scope="col" className={i === 0 ? undefined : 'number'}>
              {cell}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row, r) => (
          <tr key={r}>
            {row.map((cell, i) =>
              i === 0 ? (
                <th key={i} scope="row">
                  {cell}
                </th>
              ) : (
                <td key={i} className="number">
                  {cell}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
