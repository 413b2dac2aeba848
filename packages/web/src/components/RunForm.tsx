import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { FormButtons } from './Panel.js';
import { errorMessage, useTRPC, type RouterOutputs } from '../trpc.js';

type IterationSummary = RouterOutputs['evals']['getSummary']['iterations'][number];

/** What the form starts from: a previous iteration's settings, schema and name ("run again with changes"). */
export interface RunDefaults {
  model: string;
  temperature: number;
  name: string | null;
  /** Shown (and sent) only when given: the evaluation's schema applies otherwise. */
  json_schema?: Record<string, unknown>;
  /** The other settings, sent as they were. */
  settings?: Record<string, unknown>;
}

/** The JSON text as an object, or the reason it is not one. */
function parseSchema(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    return 'The JSON schema must be a JSON object.';
  } catch (error) {
    return `The JSON schema is not JSON: ${errorMessage(error)}`;
  }
}

/**
 * Starts an iteration (`evals.iterations.createInBackground`): its name, model (from `models.list`: what the
 * organization can run now, with its keys), temperature and, when `defaults` has one, its JSON schema. A missing model
 * or a schema that is not a JSON object is said in the page (no browser tooltip); so is the server's refusal.
 */
export function RunForm(props: { evaluationId: string; defaults?: RunDefaults; label: string; onStarted: (iteration: IterationSummary) => void; onClose: () => void }) {
  const trpc = useTRPC();
  const { defaults } = props;
  const [name, setName] = useState(defaults?.name ?? '');
  const [model, setModel] = useState(defaults?.model ?? '');
  const [temperature, setTemperature] = useState(String(defaults?.temperature ?? 0));
  const [schema, setSchema] = useState(defaults?.json_schema ? JSON.stringify(defaults.json_schema, null, 2) : null);
  const [problem, setProblem] = useState<string | null>(null);
  const models = useQuery(trpc.models.list.queryOptions());
  const start = useMutation(trpc.evals.iterations.createInBackground.mutationOptions());
  const ids = { name: useId(), model: useId(), temperature: useId(), list: useId(), schema: useId(), problem: useId() };

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = Number(temperature);
    const jsonSchema = schema === null ? undefined : parseSchema(schema);
    if (model.trim() === '') return setProblem('Choose a model to run (one of those served here, listed below the box).');
    if (temperature.trim() !== '' && (!Number.isFinite(value) || value < 0 || value > 2)) return setProblem('The temperature is a number from 0 to 2.');
    if (typeof jsonSchema === 'string') return setProblem(jsonSchema);
    setProblem(null);
    try {
      const iteration = await start.mutateAsync({
        evaluation_id: props.evaluationId,
        inference_settings: { ...defaults?.settings, model: model.trim(), ...(temperature.trim() !== '' ? { temperature: value } : {}) },
        ...(jsonSchema ? { json_schema: jsonSchema } : {}),
        ...(name.trim() !== '' ? { name: name.trim() } : {}),
      });
      props.onStarted(iteration);
    } catch (failure) {
      setProblem(errorMessage(failure));
    }
  }

  return (
    <form aria-label={props.label} noValidate onSubmit={(event) => void submit(event)}>
      <label htmlFor={ids.name}>Name</label>
      <input id={ids.name} value={name} maxLength={200} placeholder="optional: what this run tries" onChange={(event) => setName(event.target.value)} />
      <label htmlFor={ids.model}>Model</label>
      <input id={ids.model} list={ids.list} value={model} onChange={(event) => setModel(event.target.value)} autoComplete="off" aria-describedby={`${ids.model}-hint`} aria-invalid={problem !== null && model.trim() === ''} />
      <datalist id={ids.list}>
        {models.data?.data.map((entry) => (
          <option key={`${entry.extractor}:${entry.id}`} value={entry.id}>
            {entry.pattern ? `any name matching ${entry.id} (${entry.provider ?? entry.extractor})` : (entry.provider ?? entry.extractor)}
          </option>
        ))}
      </datalist>
      <p id={`${ids.model}-hint`} className="field-hint">
        Served here: {models.data?.data.map((entry) => entry.id).join(', ') ?? '…'} (a pattern such as <code>*</code> accepts any name). More providers: add
        a key in <Link to="/settings">Settings</Link>.
      </p>
      <label htmlFor={ids.temperature}>Temperature</label>
      <input id={ids.temperature} type="number" min={0} max={2} step={0.1} value={temperature} onChange={(event) => setTemperature(event.target.value)} />
      {schema !== null && (
        <>
          <label htmlFor={ids.schema}>JSON schema</label>
          <textarea id={ids.schema} className="code" value={schema} spellCheck={false} onChange={(event) => setSchema(event.target.value)} />
        </>
      )}
      {problem && (
        <p role="alert" id={ids.problem}>
          {problem}
        </p>
      )}
      <FormButtons submit="Start" pending={start.isPending} onCancel={props.onClose} cancel="Close" />
    </form>
  );
}
