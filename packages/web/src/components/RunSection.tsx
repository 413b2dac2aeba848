import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { iterationLabel } from '../evaluation-data.js';
import { errorMessage, useTRPC, useTRPCClient, type RouterOutputs } from '../trpc.js';

type IterationSummary = RouterOutputs['evals']['getSummary']['iterations'][number];

interface LiveProgress {
  total: number;
  succeeded: number;
  failed: number;
  pending: number;
}

/** Start an iteration (model from `models.list`: what the organization can run now, with its keys; settings with defaults), follow it live, cancel, re-run failures. */
export function RunSection(props: { evaluationId: string; iterations: IterationSummary[]; filenames: ReadonlyMap<string, string> }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [model, setModel] = useState('');
  const [temperature, setTemperature] = useState('0');
  const [running, setRunning] = useState<string | null>(null);
  const [progress, setProgress] = useState<LiveProgress | null>(null);
  const [failures, setFailures] = useState<{ document_id: string; error: string }[]>([]);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const models = useQuery(trpc.models.list.queryOptions());
  const modelId = useId();
  const temperatureId = useId();
  const listId = useId();

  // An iteration already running when the page opens (started elsewhere, or before a reload) is followed too.
  const active = props.iterations.find((iteration) => iteration.status === 'running' || iteration.status === 'queued');
  const current = running ?? (outcome === null ? (active?.id ?? null) : null);
  const shown = progress ?? (current !== null && current === active?.id ? active.progress : null);

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() }),
      queryClient.invalidateQueries({ queryKey: ['matrix', props.evaluationId] }),
    ]);

  const summary = useQuery({
    ...trpc.evals.iterations.getSummary.queryOptions({ evaluation_id: props.evaluationId, iteration_id: current ?? '' }),
    enabled: current !== null,
    refetchInterval: current ? 2_000 : false,
  });

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

  const start = useMutation(trpc.evals.iterations.createInBackground.mutationOptions());
  const cancel = useMutation(trpc.evals.iterations.cancel.mutationOptions());

  function follow(iteration: IterationSummary) {
    setProgress(iteration.progress);
    setFailures([]);
    setOutcome(null);
    setError(null);
    setRunning(iteration.id);
    void refresh();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = Number(temperature);
    try {
      const iteration = await start.mutateAsync({
        evaluation_id: props.evaluationId,
        inference_settings: { model: model.trim(), ...(temperature.trim() !== '' && Number.isFinite(value) ? { temperature: value } : {}) },
      });
      setOpen(false);
      follow(iteration);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  async function rerunFailed(iteration: IterationSummary) {
    setError(null);
    try {
      const failed: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await client.evals.iterations.predictions.query({ evaluation_id: props.evaluationId, iteration_id: iteration.id, limit: 1000, ...(after ? { after } : {}) });
        failed.push(...page.data.filter((prediction) => prediction.status === 'failed').map((prediction) => prediction.document_id));
        after = page.list_metadata.after ?? undefined;
        if (!after || page.data.length === 0) break;
      }
      if (failed.length === 0) {
        setOutcome('No failed document to re-run.');
        return;
      }
      follow(await client.evals.iterations.processInBackground.mutate({ evaluation_id: props.evaluationId, iteration_id: iteration.id, document_ids: failed }));
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  const done = shown ? shown.succeeded + shown.failed : 0;
  const percent = shown && shown.total > 0 ? Math.round((done / shown.total) * 100) : 0;
  const withFailures = props.iterations.filter((iteration) => iteration.progress.failed > 0 && iteration.status !== 'running' && iteration.status !== 'queued');

  return (
    <section aria-labelledby="run-title" className="panel">
      <div className="row">
        <h2 id="run-title" style={{ margin: 0, flex: 1 }}>
          Run
        </h2>
        {current === null && (
          <button type="button" className="primary" onClick={() => setOpen(!open)} aria-expanded={open}>
            Run iteration
          </button>
        )}
      </div>
      {open && current === null && (
        <form onSubmit={(event) => void submit(event)}>
          <label htmlFor={modelId}>Model</label>
          <input id={modelId} list={listId} value={model} onChange={(event) => setModel(event.target.value)} required autoComplete="off" aria-describedby={`${modelId}-hint`} />
          <datalist id={listId}>
            {models.data?.data.map((entry) => (
              <option key={`${entry.extractor}:${entry.id}`} value={entry.id}>
                {entry.pattern ? `any name matching ${entry.id} (${entry.provider ?? entry.extractor})` : (entry.provider ?? entry.extractor)}
              </option>
            ))}
          </datalist>
          <p id={`${modelId}-hint`} className="field-hint">
            Served here: {models.data?.data.map((entry) => entry.id).join(', ') ?? '…'} (a pattern such as <code>*</code> accepts any name). More
            providers: add a key in <Link to="/settings">Settings</Link>.
          </p>
          <label htmlFor={temperatureId}>Temperature</label>
          <input id={temperatureId} type="number" min={0} max={2} step={0.1} value={temperature} onChange={(event) => setTemperature(event.target.value)} />
          <p className="row" style={{ marginTop: '0.75rem' }}>
            <button type="submit" className="primary" disabled={start.isPending}>
              Start
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              Close
            </button>
          </p>
        </form>
      )}
      {error && <p role="alert">{error}</p>}
      {shown && (current !== null || !open) && (
        <div>
          <div role="progressbar" aria-label="Progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-valuetext={`${done} of ${shown.total} documents`} className="bar-track" style={{ width: '100%', height: '1rem' }}>
            <div className="bar" style={{ width: `${percent}%`, height: '100%' }} />
          </div>
          <p aria-live="polite">
            {done} of {shown.total} documents · {shown.failed} failed
            {summary.data ? ` · cost $${summary.data.usage.cost.toFixed(4)}` : ''}
          </p>
          {current !== null && (
            <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate({ evaluation_id: props.evaluationId, iteration_id: current })}>
              Cancel
            </button>
          )}
        </div>
      )}
      {outcome && <p aria-live="polite">{outcome}</p>}
      {failures.length > 0 && (
        <details open>
          <summary>{failures.length} failed documents</summary>
          <ul>
            {failures.map((failure) => (
              <li key={failure.document_id}>
                <Link to={`/evals/${encodeURIComponent(props.evaluationId)}/documents/${encodeURIComponent(failure.document_id)}`}>
                  {props.filenames.get(failure.document_id) ?? failure.document_id}
                </Link>
                : {failure.error}
              </li>
            ))}
          </ul>
        </details>
      )}
      {current === null &&
        withFailures.map((iteration) => (
          <p key={iteration.id} className="row">
            {iterationLabel(iteration)}: {iteration.progress.failed} failed
            <button type="button" onClick={() => void rerunFailed(iteration)}>
              Re-run failed documents of {iteration.inference_settings.model}
            </button>
          </p>
        ))}
    </section>
  );
}
