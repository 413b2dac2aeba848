import { useMutation, useQueryClient } from '@tanstack/react-query';
import { isTRPCClientError } from '@trpc/client';
import type { ErrorSchema } from '@rjsf/utils';
import { lazy, Suspense, useId, useState, type FormEvent, type ReactNode } from 'react';
import { FormButtons } from './Panel.js';
import { errorMessage, useTRPCClient } from '../trpc.js';

type Annotation = Record<string, unknown>;

/** The form generated from the schema (rjsf): a chunk of its own, loaded when the editor opens. */
const SchemaForm = lazy(() => import('./SchemaForm.js'));

/** The validation issues of a refused save (`data.issues` of the docevals tRPC error), none for other failures. */
function issuesOf(error: unknown): Array<{ path: string; message: string }> {
  if (!isTRPCClientError(error)) return [];
  const issues = (error.data as { issues?: unknown } | undefined)?.issues;
  return Array.isArray(issues) ? (issues as Array<{ path: string; message: string }>) : [];
}

const isObject = (value: unknown): value is Annotation => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The JSON text as an annotation, or why it is not one. */
function parseAnnotation(text: string): Annotation | string {
  let result: unknown;
  try {
    result = JSON.parse(text);
  } catch (error) {
    return `The annotation is not JSON: ${errorMessage(error)}`;
  }
  return isObject(result) ? result : 'The annotation must be a JSON object (at the root).';
}

interface EditorProps {
  evaluationId: string;
  documentId: string;
  annotation: Annotation | undefined;
  schema: Record<string, unknown> | undefined;
  /** The chosen iteration's prediction and how that iteration is named; null when it has none. */
  prediction: { value: Annotation; label: string } | null;
  /** Shown next to the buttons (the keyboard hint). */
  hint?: ReactNode;
}

/**
 * The ground truth's editor: "Edit ground truth" opens it as a form generated from the evaluation's JSON schema
 * ("Form"), or as JSON text ("JSON", the fallback for what a form cannot say). "Start from this iteration's
 * prediction" puts the chosen iteration's prediction in it, to correct rather than type. "Save" sends it
 * (`documents.update`): the server checks it against the schema (a refusal shows in an alert, and under its field
 * in the form) and refreshes every iteration's metrics; every figure on screen is read again.
 */
export function GroundTruthEditor(props: EditorProps) {
  const [editing, setEditing] = useState(false);
  if (editing) return <OpenEditor {...props} onClose={() => setEditing(false)} />;
  return (
    <p className="row">
      <button type="button" disabled={props.annotation === undefined} onClick={() => setEditing(true)}>
        Edit ground truth
      </button>
      {props.hint}
    </p>
  );
}

/** `documents.update` with the annotation; a refusal's message, and its issues under their fields. */
function useSave(props: EditorProps, onSaved: () => void) {
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [problem, setProblem] = useState<string | null>(null);
  const [errors, setErrors] = useState<ErrorSchema<Annotation> | undefined>(undefined);
  const save = useMutation({
    mutationFn: (annotation: Annotation) => client.evals.documents.update.mutate({ evaluation_id: props.evaluationId, document_id: props.documentId, annotation }),
    onSuccess: async () => {
      setProblem(null);
      setErrors(undefined);
      onSaved();
      // Every iteration's metrics changed on the server: every figure on screen is read again.
      await queryClient.invalidateQueries();
    },
    onError: async (error) => {
      setProblem(errorMessage(error));
      const issues = issuesOf(error);
      if (issues.length > 0) setErrors((await import('./SchemaForm.js')).issuesToErrorSchema(issues));
    },
  });
  return { save, problem, setProblem, errors, setErrors };
}

/** The editor once open: the Form / JSON choice, "start from the prediction", and the form or the text. */
function OpenEditor(props: EditorProps & { onClose: () => void }) {
  const [mode, setMode] = useState<'form' | 'json'>(props.schema ? 'form' : 'json');
  const [value, setValue] = useState<Annotation>(props.annotation ?? {});
  const [text, setText] = useState(JSON.stringify(props.annotation ?? {}, null, 2));
  // The form is remade (its key) when its value is replaced from outside: a prediction, the JSON text.
  const [generation, setGeneration] = useState(0);
  const { save, problem, setProblem, errors, setErrors } = useSave(props, props.onClose);
  const editorId = useId();

  function replace(next: Annotation) {
    setValue(next);
    setText(JSON.stringify(next, null, 2));
    setGeneration((n) => n + 1);
    setErrors(undefined);
  }

  /** The JSON text as the annotation, or null (and the problem said) when it is not a JSON object. */
  function parsed(): Annotation | null {
    const result = parseAnnotation(text);
    if (typeof result === 'string') setProblem(result);
    return typeof result === 'string' ? null : result;
  }

  function switchTo(next: 'form' | 'json') {
    if (next === mode) return;
    if (next === 'form') {
      const fromText = parsed();
      if (fromText === null) return;
      replace(fromText);
    } else {
      setText(JSON.stringify(value, null, 2));
    }
    setProblem(null);
    setMode(next);
  }

  const buttons = (
    <>
      {problem && <p role="alert">{problem}</p>}
      <FormButtons submit="Save" pending={save.isPending} onCancel={props.onClose} />
    </>
  );
  return (
    <div>
      <div className="row">
        <ModeChoice name={`${editorId}-mode`} mode={mode} formPossible={props.schema !== undefined} onChange={switchTo} />
        {props.prediction && (
          <>
            <button type="button" onClick={() => replace(props.prediction!.value)}>
              Start from this iteration's prediction
            </button>
            <span className="field-hint">puts the prediction of {props.prediction.label} in the editor: correct it, then save</span>
          </>
        )}
      </div>
      {mode === 'form' && props.schema ? (
        <Suspense fallback={<p aria-busy="true">Loading the form…</p>}>
          <SchemaForm key={generation} schema={props.schema} value={value} onChange={setValue} onSubmit={(annotation) => save.mutate(annotation)} {...(errors ? { errors } : {})} disabled={save.isPending}>
            {buttons}
          </SchemaForm>
        </Suspense>
      ) : (
        <JsonEditor
          id={editorId}
          text={text}
          onChange={setText}
          onSubmit={() => {
            const annotation = parsed();
            if (annotation !== null) save.mutate(annotation);
          }}
        >
          {buttons}
        </JsonEditor>
      )}
    </div>
  );
}

function ModeChoice(props: { name: string; mode: 'form' | 'json'; formPossible: boolean; onChange: (mode: 'form' | 'json') => void }) {
  return (
    <fieldset className="choices">
      <legend>Edit as</legend>
      <label className="choice">
        <input type="radio" name={props.name} checked={props.mode === 'form'} disabled={!props.formPossible} onChange={() => props.onChange('form')} />
        Form
      </label>
      <label className="choice">
        <input type="radio" name={props.name} checked={props.mode === 'json'} onChange={() => props.onChange('json')} />
        JSON
      </label>
    </fieldset>
  );
}

function JsonEditor(props: { id: string; text: string; onChange: (text: string) => void; onSubmit: () => void; children: ReactNode }) {
  return (
    <form
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      <label htmlFor={props.id}>Annotation</label>
      <textarea id={props.id} className="code" value={props.text} spellCheck={false} onChange={(event) => props.onChange(event.target.value)} aria-describedby={`${props.id}-hint`} />
      <p id={`${props.id}-hint`} className="field-hint">
        JSON, checked against the evaluation's JSON schema by the server when saved.
      </p>
      {props.children}
    </form>
  );
}
