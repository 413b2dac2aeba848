import { useQueries } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { flatten, Predicted, show, type PredictionWithMetrics } from './DocumentFields.js';
import { iterationLabel } from '../evaluation-data.js';
import { useEditSearch } from '../search-params.js';
import { formatSimilarity, similarityColour } from '../similarity-colour.js';
import { useTRPC, type RouterOutputs } from '../trpc.js';

type IterationSummary = RouterOutputs['evals']['iterations']['listSummaries']['data'][number];

/**
 * The document's predictions in N chosen iterations, one column each, against the ground truth, field by field: a
 * value that differs from the truth is highlighted (its character diff, its similarity written and coloured). The
 * chosen iterations are in the URL (`?compare=ITER,ITER,…`): a view to share. Each prediction is one request by
 * document id (the same as the single view's, so it is read once).
 */
export function SideBySide(props: { evaluationId: string; documentId: string; annotation: unknown; iterations: readonly IterationSummary[] }) {
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
        <SideTable chosen={chosen} labels={labels} predictions={predictions} pending={results.map((result) => result.isPending)} truth={truth} flats={flats} paths={paths} />
      )}
    </section>
  );
}

/** The paths of the ground truth and the chosen predictions in rows, the iterations in columns; differences coloured. */
function SideTable(props: {
  chosen: string[];
  labels: ReadonlyMap<string, string>;
  predictions: Array<PredictionWithMetrics | null | undefined>;
  pending: boolean[];
  truth: Record<string, unknown>;
  flats: Array<Record<string, unknown>>;
  paths: string[];
}) {
  return (
    <div className="side-scroll">
      <table aria-label="Side by side" className="side-by-side">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Ground truth</th>
            {props.chosen.map((id, i) => (
              <th scope="col" key={id}>
                {props.labels.get(id) ?? id}
                <br />
                <span className="muted">
                  {props.predictions[i] ? `${props.predictions[i]!.status} · ${formatSimilarity(props.predictions[i]!.metrics.similarity, 3)}` : props.pending[i] ? 'loading…' : ''}
                </span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.paths.map((path) => (
            <tr key={path}>
              <th scope="row">
                <code>{path}</code>
              </th>
              <td>{show(props.truth[path])}</td>
              {props.chosen.map((id, i) => {
                const prediction = props.predictions[i];
                const predicted = props.flats[i]![path];
                const similarity = prediction?.metrics.flat_similarities[path];
                const differs = prediction?.status === 'succeeded' && show(predicted) !== show(props.truth[path]);
                return (
                  <td key={id} className={differs ? 'differs' : undefined} style={differs ? { background: similarityColour(similarity) } : undefined}>
                    {prediction?.status === 'failed' ? (
                      <span className="muted">failed</span>
                    ) : (
                      <>
                        <Predicted truth={props.truth[path]} predicted={predicted} />
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
  );
}
