import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { DataTable } from '../components/DataTable.js';
import { FileDrop } from '../components/FileDrop.js';
import { LoadSample } from '../components/LoadSample.js';
import { readAsDataUrl } from '../files.js';
import { formatSimilarity, similarityColour } from '../similarity-colour.js';
import { createAppColumnHelper, useAppTable } from '../table.js';
import { errorMessage, useTRPC, type RouterOutputs } from '../trpc.js';

type EvaluationRow = RouterOutputs['evals']['list']['data'][number];

const EXAMPLE_SCHEMA = `{
  "type": "object",
  "properties": {
    "total": { "type": "number" },
    "vendor": { "type": "string" }
  }
}`;

/** `/`: the evaluations, newest first, with create, rename and delete. */
export function EvaluationsPage() {
  const trpc = useTRPC();
  const [cursor, setCursor] = useState<{ after?: string; before?: string }>({});
  const [creating, setCreating] = useState(false);
  const list = useQuery(trpc.evals.list.queryOptions({ limit: 50, ...cursor }));
  const page = list.data;

  return (
    <>
      <div className="row">
        <h1 style={{ flex: 1 }}>Evaluations</h1>
        <LoadSample />
        <button type="button" className="primary" onClick={() => setCreating(true)} aria-expanded={creating}>
          New evaluation
        </button>
      </div>
      {creating && <CreateEvaluationForm onClose={() => setCreating(false)} />}
      {list.error && <p role="alert">Cannot list the evaluations: {errorMessage(list.error)}</p>}
      {list.isPending && <p aria-busy="true">Loading…</p>}
      {page && (
        <>
          <EvaluationsTable evaluations={page.data} />
          <div className="row" style={{ marginTop: '0.5rem' }}>
            {(cursor.after || cursor.before) && (
              <button type="button" onClick={() => setCursor({})}>
                First page
              </button>
            )}
            {page.list_metadata.after && page.data.length === 50 && (
              <button type="button" onClick={() => setCursor({ after: page.list_metadata.after! })}>
                Next page
              </button>
            )}
          </div>
        </>
      )}
    </>
  );
}

const evaluationHelper = createAppColumnHelper<EvaluationRow>();

/** The best mean similarity of the iterations that scored at least one document; undefined when none did. */
function bestMean(iterations: EvaluationRow['iterations']): number | undefined {
  let best: number | undefined;
  for (const iteration of iterations) {
    if (iteration.progress.succeeded === 0) continue;
    const mean = iteration.metric_results.mean_similarity;
    if (best === undefined || mean > best) best = mean;
  }
  return best;
}

/**
 * The list's columns. Not sortable: the list is paged on the server (newest first), and a sort on the client would
 * order one page only. `renaming` holds the ids of the rows whose name is being edited (their name cell is a form).
 */
function evaluationColumns(renaming: ReadonlySet<string>, setRenaming: (id: string, on: boolean) => void) {
  return evaluationHelper.columns([
    evaluationHelper.accessor('name', {
      header: 'Name',
      cell: ({ row: { original } }) =>
        renaming.has(original.id) ? (
          <RenameForm evaluation={original} onDone={() => setRenaming(original.id, false)} />
        ) : (
          <Link to={`/evals/${encodeURIComponent(original.id)}`}>{original.name}</Link>
        ),
    }),
    evaluationHelper.accessor('document_count', { header: 'Documents', meta: { numeric: true } }),
    evaluationHelper.accessor((evaluation) => evaluation.iterations.length, { id: 'iterations', header: 'Iterations', meta: { numeric: true } }),
    // The best mean similarity among the evaluation's iterations (their summaries come with the list).
    evaluationHelper.accessor((evaluation) => bestMean(evaluation.iterations), {
      id: 'score',
      header: 'Best mean',
      meta: { numeric: true, cellAttributes: (value) => (typeof value === 'number' ? { style: { background: similarityColour(value) } } : {}) },
      cell: ({ getValue }) => formatSimilarity(getValue(), 3),
    }),
    evaluationHelper.accessor('updated_at', {
      header: 'Updated',
      cell: ({ getValue }) => <time dateTime={getValue()}>{new Date(getValue()).toLocaleString()}</time>,
    }),
    evaluationHelper.display({
      id: 'actions',
      header: () => <span className="sr-only">Actions</span>,
      cell: ({ row: { original } }) => <EvaluationActions evaluation={original} renaming={renaming.has(original.id)} onRename={() => setRenaming(original.id, true)} />,
    }),
  ]);
}

function EvaluationsTable(props: { evaluations: readonly EvaluationRow[] }) {
  const [renaming, setRenamingIds] = useState<ReadonlySet<string>>(new Set());
  const setRenaming = useCallback(
    (id: string, on: boolean) =>
      setRenamingIds((current) => {
        const next = new Set(current);
        if (on) next.add(id);
        else next.delete(id);
        return next;
      }),
    [],
  );
  const columns = useMemo(() => evaluationColumns(renaming, setRenaming), [renaming, setRenaming]);
  const table = useAppTable({ columns, data: props.evaluations, getRowId: (evaluation) => evaluation.id, enableSorting: false });
  return <DataTable table={table} label="Evaluations" empty="No evaluation yet: create one with “New evaluation”, or try “Load the sample”." />;
}

/** The name cell while renaming: the new name, "Save name", "Cancel". */
function RenameForm({ evaluation, onDone }: { evaluation: EvaluationRow; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState(evaluation.name);
  const rename = useMutation(
    trpc.evals.update.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() }).then(onDone) }),
  );
  return (
    <form
      className="row"
      onSubmit={(event) => {
        event.preventDefault();
        rename.mutate({ evaluation_id: evaluation.id, name: name.trim() });
      }}
    >
      <input aria-label={`New name for ${evaluation.name}`} value={name} onChange={(event) => setName(event.target.value)} autoFocus />
      <button type="submit" className="primary" disabled={rename.isPending}>
        Save name
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
      {rename.error && <span role="alert">{errorMessage(rename.error)}</span>}
    </form>
  );
}

/** The actions cell: "Rename" (unless renaming), "Delete" after a confirmation. */
function EvaluationActions({ evaluation, renaming, onRename }: { evaluation: EvaluationRow; renaming: boolean; onRename: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(trpc.evals.delete.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() }) }));
  return (
    <div className="row">
      {!renaming && (
        <button type="button" onClick={onRename} aria-label={`Rename ${evaluation.name}`}>
          Rename
        </button>
      )}
      {confirming ? (
        <span role="group" aria-label={`Confirm deleting ${evaluation.name}`} className="row">
          <span>Delete “{evaluation.name}” and its documents and iterations?</span>
          <button type="button" className="danger" onClick={() => remove.mutate({ evaluation_id: evaluation.id })} disabled={remove.isPending}>
            Yes, delete
          </button>
          <button type="button" onClick={() => setConfirming(false)} autoFocus>
            Keep it
          </button>
        </span>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)} aria-label={`Delete ${evaluation.name}`}>
          Delete
        </button>
      )}
      {remove.error && <span role="alert">{errorMessage(remove.error)}</span>}
    </div>
  );
}

/** Name, JSON schema and files: creates the evaluation, then adds the files one by one (progress shown). */
function CreateEvaluationForm(props: { onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [schemaText, setSchemaText] = useState(EXAMPLE_SCHEMA);
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<string | null>(null);
  const create = useMutation(trpc.evals.create.mutationOptions());
  const addDocument = useMutation(trpc.evals.documents.add.mutationOptions());

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    let jsonSchema: unknown;
    try {
      jsonSchema = JSON.parse(schemaText);
    } catch (failure) {
      setError(`JSON schema: not valid JSON (${errorMessage(failure)}). Fix the text and create again.`);
      return;
    }
    if (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)) {
      setError('JSON schema: must be a JSON object, e.g. {"type": "object", "properties": {...}}.');
      return;
    }
    try {
      setProgress('Creating the evaluation…');
      const evaluation = await create.mutateAsync({ name: name.trim(), json_schema: jsonSchema as Record<string, unknown> });
      for (const [index, file] of files.entries()) {
        setProgress(`Adding ${file.name} (${index + 1} of ${files.length})…`);
        const url = await readAsDataUrl(file);
        await addDocument.mutateAsync({ evaluation_id: evaluation.id, mime_data: { filename: file.name, url } });
      }
      await queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() });
      props.onClose();
      void navigate(`/evals/${encodeURIComponent(evaluation.id)}`);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setProgress(null);
    }
  }

  return (
    <form className="panel" onSubmit={(event) => void submit(event)} aria-labelledby="new-evaluation-title">
      <h2 id="new-evaluation-title">New evaluation</h2>
      <label htmlFor="new-evaluation-name">Name</label>
      <input id="new-evaluation-name" value={name} onChange={(event) => setName(event.target.value)} required maxLength={512} autoFocus />
      <label htmlFor="new-evaluation-schema">JSON schema</label>
      <textarea
        id="new-evaluation-schema"
        className="code"
        value={schemaText}
        onChange={(event) => setSchemaText(event.target.value)}
        spellCheck={false}
        aria-describedby="new-evaluation-schema-hint"
      />
      <p id="new-evaluation-schema-hint" className="field-hint">
        The fields to extract, as a JSON schema object. Annotations (ground truth) can be added per document afterwards.
      </p>
      <FileDrop label="Files" files={files} onChange={setFiles} />
      {error && <p role="alert">{error}</p>}
      {progress && <p aria-live="polite">{progress}</p>}
      <div className="row">
        <button type="submit" className="primary" disabled={progress !== null}>
          Create
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
