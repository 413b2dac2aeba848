import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { TableHead } from './Panel.js';
import { RunForm } from './RunForm.js';
import { plural } from '../evaluation-data.js';
import { schemaDiff } from '../schema-diff.js';
import { errorMessage, useTRPC, type RouterOutputs } from '../trpc.js';

type IterationSummary = RouterOutputs['evals']['iterations']['getSummary'];

/** The iteration's schema against the evaluation's: fields added, removed or changed; a line when they are the same. */
export function SchemaDiff(props: { evaluationId: string; iteration: IterationSummary }) {
  const trpc = useTRPC();
  const evaluation = useQuery(trpc.evals.getSummary.queryOptions({ evaluation_id: props.evaluationId }));
  const changes = useMemo(() => (evaluation.data ? schemaDiff(evaluation.data.json_schema, props.iteration.json_schema) : null), [evaluation.data, props.iteration.json_schema]);
  return (
    <section aria-labelledby="schema-diff-title">
      <h2 id="schema-diff-title">Schema</h2>
      {evaluation.error && <p role="alert">Cannot read the evaluation's schema: {errorMessage(evaluation.error)}</p>}
      {changes === null ? null : changes.length === 0 ? (
        <p className="muted">The same JSON schema as the evaluation's.</p>
      ) : (
        <>
          <p>{plural(changes.length, 'difference')} from the evaluation's JSON schema:</p>
          <table aria-label="Schema differences" className="schema-diff">
            <TableHead columns={['Field', 'Change', 'Detail']} />
            <tbody>
              {changes.map((change) => (
                <tr key={`${change.kind}:${change.path}`}>
                  <th scope="row">
                    <code>{change.path}</code>
                  </th>
                  <td className={change.kind}>{change.kind}</td>
                  <td>{change.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <details>
        <summary>This iteration's JSON schema</summary>
        <pre className="panel">{JSON.stringify(props.iteration.json_schema, null, 2)}</pre>
      </details>
    </section>
  );
}

/**
 * "Run again with changes": the run form prefilled with this iteration's name, model, temperature, other settings
 * and JSON schema; Start creates a new iteration (the same create call as the evaluation's Run) and opens the
 * evaluation, which follows it live.
 */
export function RunAgain(props: { evaluationId: string; iteration: IterationSummary }) {
  const navigate = useNavigate();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const { iteration } = props;
  const { model, temperature, ...settings } = iteration.inference_settings;
  return (
    <section aria-labelledby="run-again-title" className="panel">
      <h2 id="run-again-title" style={{ marginTop: 0 }}>
        Run again
      </h2>
      {open ? (
        <RunForm
          evaluationId={props.evaluationId}
          label="Run again with changes"
          defaults={{ model, temperature, name: iteration.name ? `${iteration.name} (again)` : null, json_schema: iteration.json_schema, settings }}
          onStarted={() => {
            // The evaluation's summary now has the new iteration (running): read again, so that its Run follows it.
            void queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() });
            void navigate(`/evals/${encodeURIComponent(props.evaluationId)}`);
          }}
          onClose={() => setOpen(false)}
        />
      ) : (
        <p className="row">
          <button type="button" onClick={() => setOpen(true)} aria-expanded={open}>
            Run again with changes
          </button>
          <span className="field-hint">a new iteration from this one's settings and schema, changed as you like</span>
        </p>
      )}
    </section>
  );
}
