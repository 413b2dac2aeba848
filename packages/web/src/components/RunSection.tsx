import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { PanelHeader } from './Panel.js';
import { RunForm } from './RunForm.js';
import { failedDocuments, iterationLabel, type MatrixData } from '../evaluation-data.js';
import { errorMessage, useTRPC, useTRPCClient, type RouterOutputs } from '../trpc.js';

type IterationSummary = RouterOutputs['evals']['getSummary']['iterations'][number];

interface LiveProgress {
  total: number;
  succeeded: number;
  failed: number;
  pending: number;
}

interface Failure {
  document_id: string;
  error: string;
}

/** Start an iteration, follow it live (progress, cost, failures with their reasons), cancel it, re-run failures. */
export function RunSection(props: { evaluationId: string; iterations: IterationSummary[]; filenames: ReadonlyMap<string, string>; matrix: MatrixData | undefined }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [running, setRunning] = useState<string | null>(null);
  const [progress, setProgress] = useState<LiveProgress | null>(null);
  const [failures, setFailures] = useState<Failure[]>([]);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  // An iteration already running when the page opens (started elsewhere, or before a reload) is followed too.
  const active = props.iterations.find((iteration) => iteration.status === 'running' || iteration.status === 'queued');
  const current = running ?? (outcome === null ? (active?.id ?? null) : null);
  const shown = progress ?? (current !== null && current === active?.id ? active.progress : null);

  // Everything of the evaluation under tRPC's key, the matrix included: read again once.
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() });

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

  function follow(iteration: IterationSummary) {
    setOpen(false);
    setProgress(iteration.progress);
    setFailures([]);
    setOutcome(null);
    setError(null);
    setRunning(iteration.id);
    void refresh();
  }

  /** Re-runs the documents that failed in `iteration`, as the matrix's outcomes say. */
  async function rerunFailed(iteration: IterationSummary) {
    setError(null);
    const failed = failedDocuments(props.matrix, iteration.id);
    if (failed.length === 0) return setOutcome('No failed document to re-run.');
    try {
      follow(await client.evals.iterations.processInBackground.mutate({ evaluation_id: props.evaluationId, iteration_id: iteration.id, document_ids: failed }));
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  const withFailures = props.iterations.filter((iteration) => iteration.progress.failed > 0 && iteration.status !== 'running' && iteration.status !== 'queued');
  return (
    <section aria-labelledby="run-title" className="panel">
      <PanelHeader id="run-title" title="Run" open={open} onToggle={() => setOpen(!open)} button="Run iteration" primary hidden={current !== null} />
      {open && current === null && <RunForm evaluationId={props.evaluationId} label="Run an iteration" onStarted={follow} onClose={() => setOpen(false)} />}
      {error && <p role="alert">{error}</p>}
      {shown && (current !== null || !open) && <RunProgress evaluationId={props.evaluationId} current={current} shown={shown} />}
      {outcome && <p aria-live="polite">{outcome}</p>}
      <FailureList evaluationId={props.evaluationId} failures={failures} filenames={props.filenames} />
      {current === null &&
        withFailures.map((iteration) => (
          <p key={iteration.id} className="row">
            {iterationLabel(iteration)}: {iteration.progress.failed} failed
            <button type="button" disabled={props.matrix === undefined} onClick={() => void rerunFailed(iteration)}>
              Re-run failed documents of {iteration.inference_settings.model}
            </button>
          </p>
        ))}
    </section>
  );
}

/** The followed iteration's progress bar, counts and cost (its summary, read every 2 s while it runs), and Cancel. */
function RunProgress(props: { evaluationId: string; current: string | null; shown: LiveProgress }) {
  const trpc = useTRPC();
  const { current, shown } = props;
  const cancel = useMutation(trpc.evals.iterations.cancel.mutationOptions());
  const summary = useQuery({
    ...trpc.evals.iterations.getSummary.queryOptions({ evaluation_id: props.evaluationId, iteration_id: current ?? '' }),
    enabled: current !== null,
    refetchInterval: current ? 2_000 : false,
  });
  const done = shown.succeeded + shown.failed;
  const percent = shown.total > 0 ? Math.round((done / shown.total) * 100) : 0;
  return (
    <div>
      <div role="progressbar" aria-label="Progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-valuetext={`${done} of ${shown.total} documents`} className="bar-track" style={{ width: '100%', height: '1rem' }}>
        <div className="bar" style={{ width: `${percent}%`, height: '100%' }} />
      </div>
      <p aria-live="polite">
        {done} of {shown.total} documents · {shown.failed} failed
        {current !== null && summary.data ? ` · cost $${summary.data.usage.cost.toFixed(4)}` : ''}
      </p>
      {current !== null && (
        <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate({ evaluation_id: props.evaluationId, iteration_id: current })}>
          Cancel
        </button>
      )}
    </div>
  );
}

/** The documents that failed in the followed run, by file name, with the reason. */
function FailureList(props: { evaluationId: string; failures: Failure[]; filenames: ReadonlyMap<string, string> }) {
  if (props.failures.length === 0) return null;
  return (
    <details open>
      <summary>{props.failures.length} failed documents</summary>
      <ul>
        {props.failures.map((failure) => (
          <li key={failure.document_id}>
            <Link to={`/evals/${encodeURIComponent(props.evaluationId)}/documents/${encodeURIComponent(failure.document_id)}`}>
              {props.filenames.get(failure.document_id) ?? failure.document_id}
            </Link>
            : {failure.error}
          </li>
        ))}
      </ul>
    </details>
  );
}
