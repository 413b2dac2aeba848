import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { RunAgain, SchemaDiff } from '../components/IterationChanges.js';
import { FieldsTable } from '../components/IterationTables.js';
import { FormButtons } from '../components/Panel.js';
import { iterationLabel, plural } from '../evaluation-data.js';
import { iterationDuration } from '../iteration-duration.js';
import { formatSimilarity, similarityColour } from '../similarity-colour.js';
import { errorMessage, useTRPC, useTRPCClient, type RouterOutputs } from '../trpc.js';

type IterationSummary = RouterOutputs['evals']['iterations']['getSummary'];

const PAGE = 50;

/**
 * `/evals/:evaluationId/iterations/:iterationId`: an iteration (an experiment): its name, description and tags
 * (editable: `evals.iterations.updateMetadata`, labels only), its settings, status, dates, duration, usage and
 * means, its schema's differences from the evaluation's, "run again with changes", its fields worst first, and its documents with their outcome and similarity, a page at a time.
 */
export function IterationPage() {
  const { evaluationId = '', iterationId = '' } = useParams();
  const trpc = useTRPC();
  const ref = { evaluation_id: evaluationId, iteration_id: iterationId };
  const iteration = useQuery(trpc.evals.iterations.getSummary.queryOptions(ref));
  const evalPath = `/evals/${encodeURIComponent(evaluationId)}`;
  if (iteration.error) {
    return (
      <p role="alert">
        Cannot open this iteration: {errorMessage(iteration.error)} <Link to={evalPath}>Back to the evaluation</Link>
      </p>
    );
  }
  const data = iteration.data;
  return (
    <>
      <p>
        <Link to={evalPath}>Back to the evaluation</Link>
      </p>
      <h1>{data ? iterationLabel(data) : 'Loading…'}</h1>
      {data && (
        <>
          {data.description && <p>{data.description}</p>}
          {data.tags.length > 0 && (
            <ul className="tags" aria-label="Tags">
              {data.tags.map((tag) => (
                <li key={tag}>{tag}</li>
              ))}
            </ul>
          )}
          <LabelsForm evaluationId={evaluationId} iteration={data} />
          <IterationFacts iteration={data} />
          <SchemaDiff evaluationId={evaluationId} iteration={data} />
          <RunAgain evaluationId={evaluationId} iteration={data} />
        </>
      )}
      <section aria-labelledby="iteration-fields-title">
        <h2 id="iteration-fields-title">Fields</h2>
        <FieldsTable evaluationId={evaluationId} iterationId={iterationId} />
      </section>
      <IterationDocuments evaluationId={evaluationId} iterationId={iterationId} />
    </>
  );
}

/** Name, description and tags: "Rename" opens them in place; "Save" sends the three (an empty one clears it). */
function LabelsForm(props: { evaluationId: string; iteration: IterationSummary }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { iteration } = props;
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [tags, setTags] = useState('');
  const ids = { name: useId(), description: useId(), tags: useId() };
  const save = useMutation(
    trpc.evals.iterations.updateMetadata.mutationOptions({
      onSuccess: async () => {
        setOpen(false);
        // The name shows on every page of the evaluation: every read of it is read again.
        await queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() });
      },
    }),
  );
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({
      evaluation_id: props.evaluationId,
      iteration_id: iteration.id,
      name: name.trim() === '' ? null : name.trim(),
      description: description.trim() === '' ? null : description,
      tags: [...new Set(tags.split(',').map((tag) => tag.trim()).filter((tag) => tag !== ''))],
    });
  }
  if (!open) {
    return (
      <p>
        <button
          type="button"
          onClick={() => {
            setName(iteration.name ?? '');
            setDescription(iteration.description ?? '');
            setTags(iteration.tags.join(', '));
            save.reset();
            setOpen(true);
          }}
        >
          Rename
        </button>{' '}
        <span className="field-hint">name, describe or tag this iteration (labels only: nothing runs again)</span>
      </p>
    );
  }
  return (
    <form className="panel" aria-label="Labels" onSubmit={submit}>
      <label htmlFor={ids.name}>Name</label>
      <input id={ids.name} value={name} maxLength={200} placeholder={iteration.inference_settings.model} onChange={(event) => setName(event.target.value)} autoFocus />
      <label htmlFor={ids.description}>Description</label>
      <textarea id={ids.description} value={description} maxLength={4000} rows={3} onChange={(event) => setDescription(event.target.value)} />
      <label htmlFor={ids.tags}>Tags</label>
      <input id={ids.tags} value={tags} onChange={(event) => setTags(event.target.value)} aria-describedby={`${ids.tags}-hint`} />
      <p id={`${ids.tags}-hint`} className="field-hint">
        separated by commas
      </p>
      {save.error && <p role="alert">{errorMessage(save.error)}</p>}
      <FormButtons submit="Save" pending={save.isPending} onCancel={() => setOpen(false)} />
    </form>
  );
}

const dateTime = (value: string | null) => (value ? new Date(value).toLocaleString('en') : '–');

/** Settings, status, dates, duration, usage and means, as a description list. */
function IterationFacts({ iteration }: { iteration: IterationSummary }) {
  const results = iteration.metric_results;
  const facts: Array<[string, string]> = [
    ['Model', iteration.inference_settings.model],
    ['Status', iteration.error ? `${iteration.status}: ${iteration.error}` : iteration.status],
    ['Created', dateTime(iteration.created_at)],
    ['Duration', iterationDuration(iteration)],
    ['Documents', `${iteration.progress.succeeded} succeeded · ${iteration.progress.failed} failed · ${iteration.progress.pending} pending`],
    ['Mean similarity', `${formatSimilarity(results.mean_similarity, 3)} (aligned ${formatSimilarity(results.aligned_mean_similarity, 3)})`],
    ['Cost', `$${iteration.usage.cost.toFixed(4)}`],
    ['Tokens', `${iteration.usage.input_tokens.toLocaleString('en')} in · ${iteration.usage.output_tokens.toLocaleString('en')} out`],
  ];
  return (
    <section aria-labelledby="iteration-facts-title">
      <h2 id="iteration-facts-title">Summary</h2>
      <dl className="facts">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <details>
        <summary>Settings</summary>
        <pre className="panel">{JSON.stringify(iteration.inference_settings, null, 2)}</pre>
      </details>
    </section>
  );
}

/**
 * The iteration's documents in the evaluation's order, `PAGE` at a time ("Show more"): each page is the documents'
 * list (file names) and their predictions in this iteration (by id), under the predictions' tRPC key.
 */
function IterationDocuments(props: { evaluationId: string; iterationId: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const { evaluationId, iterationId } = props;
  const pages = useInfiniteQuery({
    queryKey: trpc.evals.iterations.predictions.queryKey({ evaluation_id: evaluationId, iteration_id: iterationId, limit: PAGE }),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => {
      const documents = await client.evals.documents.list.query({ evaluation_id: evaluationId, limit: PAGE, ...(pageParam ? { after: pageParam } : {}) });
      const ids = documents.data.map((document) => document.id);
      const predictions = ids.length === 0 ? [] : (await client.evals.iterations.predictions.query({ evaluation_id: evaluationId, iteration_id: iterationId, document_ids: ids, limit: PAGE })).data;
      const byId = new Map(predictions.map((prediction) => [prediction.document_id, prediction]));
      return {
        rows: documents.data.map((document) => ({ id: document.id, filename: document.mime_data.filename, prediction: byId.get(document.id) })),
        after: documents.list_metadata.after,
      };
    },
    getNextPageParam: (last) => last.after ?? undefined,
  });
  const rows = pages.data?.pages.flatMap((page) => page.rows) ?? [];
  return (
    <section aria-labelledby="iteration-documents-title">
      <h2 id="iteration-documents-title">Documents</h2>
      {pages.error && <p role="alert">{errorMessage(pages.error)}</p>}
      <table aria-label="Documents of this iteration">
        <thead>
          <tr>
            <th scope="col">Document</th>
            <th scope="col">Outcome</th>
            <th scope="col" className="number">
              Similarity
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ id, filename, prediction }) => {
            const status = prediction?.status ?? 'pending';
            const error = status === 'failed' ? (prediction?.metadata as { error?: unknown } | null | undefined)?.error : undefined;
            return (
              <tr key={id}>
                <th scope="row">
                  <Link to={`/evals/${encodeURIComponent(evaluationId)}/documents/${encodeURIComponent(id)}?compare=${encodeURIComponent(iterationId)}`}>{filename}</Link>
                </th>
                <td>{error === undefined ? status : `failed: ${typeof error === 'string' ? error : JSON.stringify(error)}`}</td>
                <td className="number" style={status === 'succeeded' ? { background: similarityColour(prediction?.metrics.similarity) } : undefined}>
                  {status === 'succeeded' ? formatSimilarity(prediction?.metrics.similarity, 3) : '–'}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="row">
        <span className="muted" aria-live="polite">
          {plural(rows.length, 'document')} shown
        </span>
        {pages.hasNextPage && (
          <button type="button" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
            Show more
          </button>
        )}
      </p>
    </section>
  );
}
