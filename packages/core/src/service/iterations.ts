import {
  createIterationInputSchema,
  iterationIdInputSchema,
  getIterationInputSchema,
  iterationRefInputSchema,
  listIterationsInputSchema,
  listPredictionsInputSchema,
  processIterationInputSchema,
  updateIterationInputSchema,
  updateIterationMetadataInputSchema,
  type CreateIterationInput,
  type Deleted,
  type GetIterationInput,
  type Iteration,
  type IterationIdInput,
  type IterationEvent,
  type IterationEventsInput,
  iterationEventsInputSchema,
  type IterationRefInput,
  type IterationSummary,
  type ListIterationsInput,
  type ListPredictionsInput,
  type PredictionPage,
  type ProcessIterationInput,
  type UpdateIterationInput,
  type UpdateIterationMetadataInput,
} from '../schemas/index.js';
import { notFound } from '../errors.js';
import type { InferenceSettings } from '../schemas/index.js';
import type { DocumentRecord } from '../storage.js';
import type { OperationContext } from './context.js';
import { newIterationId } from './ids.js';
import { bindContext } from './bind-context.js';
import { attachIteration, detachIteration, discardIteration, newIterationRecord, resolveIterationSchema, tooManyIterations } from './iteration-steps.js';
import { queueRun, refOf, startJob } from './iteration-runs.js';
import { assertBelowCap, cancelJob, lazyEvents, newJobId, registerJob, subscribeEvents, unregisterIteration } from './jobs/index.js';
import { listMetadata, pageOf, unknownCursor } from './lists.js';
import { documentTally, renderIteration, renderIterationSummary, renderPredictionPage } from './render.js';
import { loadIterations, predictionsFor, readAllDocuments, readDocumentsById, requireEvaluation, requireIteration, requireIterationOf } from './reads.js';
import { resolveSettings } from './settings.js';
import { updateRecord } from './update-record.js';
import { invalidRequest, parseInput } from './validate.js';

export function iterationOperations(ctx: OperationContext) {
  /**
   * Every iteration, oldest first: the interface's shape, or summaries with `view: 'summary'`.
   */
  function list(organizationId: string, input: ListIterationsInput & { view: 'summary' }): Promise<{ data: IterationSummary[] }>;
  function list(organizationId: string, input: ListIterationsInput & { view?: 'full' }): Promise<{ data: Iteration[] }>;
  function list(organizationId: string, input: ListIterationsInput): Promise<{ data: Array<Iteration | IterationSummary> }>;
  function list(organizationId: string, input: ListIterationsInput): Promise<{ data: Array<Iteration | IterationSummary> }> {
    return listIterations(ctx, organizationId, input);
  }

  /**
   * Runs an iteration over the evaluation's documents. Without `background`, answers when it is done; every
   * document failed: a 502 `extractor_error` naming the kept iteration. With `background: true`, answers at once
   * with the summary (`queued` / `running`): follow it with `events` or `get`.
   */
  function create(organizationId: string, input: CreateIterationInput & { background: true }): Promise<IterationSummary>;
  function create(organizationId: string, input: CreateIterationInput & { background?: false }): Promise<Iteration>;
  function create(organizationId: string, input: CreateIterationInput): Promise<Iteration | IterationSummary>;
  function create(organizationId: string, input: CreateIterationInput): Promise<Iteration | IterationSummary> {
    return createIteration(ctx, organizationId, input);
  }

  /**
   * The interface's shape, or a summary with `view: 'summary'`.
   */
  function get(organizationId: string, input: GetIterationInput & { view: 'summary' }): Promise<IterationSummary>;
  function get(organizationId: string, input: GetIterationInput & { view?: 'full' }): Promise<Iteration>;
  function get(organizationId: string, input: GetIterationInput): Promise<Iteration | IterationSummary>;
  function get(organizationId: string, input: GetIterationInput): Promise<Iteration | IterationSummary> {
    return getIteration(ctx, organizationId, input);
  }

  /**
   * Re-runs documents as a new job (`background` as for create); 409 while the iteration's job is active.
   */
  function process(organizationId: string, input: ProcessIterationInput & { background: true }): Promise<IterationSummary>;
  function process(organizationId: string, input: ProcessIterationInput & { background?: false }): Promise<Iteration>;
  function process(organizationId: string, input: ProcessIterationInput): Promise<Iteration | IterationSummary>;
  function process(organizationId: string, input: ProcessIterationInput): Promise<Iteration | IterationSummary> {
    return processIteration(ctx, organizationId, input);
  }

  return {
    list,
    create,
    get,
    process,
    ...bindContext(ctx, {
      /**
       * A page of predictions with their metrics, in the evaluation's document order; with `document_ids`, of those
       * documents only (read by id), in that order. An id the evaluation does not hold is a 422 at its index.
       *
       * @example
       * const { data: [one] } = await docevals.evals.iterations.predictions('org_1', { evaluation_id, iteration_id, document_ids: [documentId] });
       */
      predictions,
      delete: deleteIteration,
      /**
       * Stops the iteration's job: no new extractor call, calls in flight aborted, predictions so far kept, status
       * `cancelled`. An iteration not queued or running is answered as it is.
       */
      cancel,
      /**
       * Names, describes or tags the iteration (omitted labels stay; null or `[]` clears one). Labels only: nothing
       * runs again, and it works while the iteration runs (the record's compare-and-set keeps the job's writes).
       *
       * @example
       * await docevals.evals.iterations.updateMetadata('org_1', { evaluation_id, iteration_id, name: 'gpt-4.1, prompt v2', tags: ['baseline'] });
       */
      updateMetadata,
      /**
       * The iteration's events (`document`, `progress`, final `completed` / `failed` / `cancelled`) as they happen;
       * ends after the final one. `last_event_id` resumes just after that event. Break out of the loop to stop.
       *
       * @example
       * for await (const event of docevals.evals.iterations.events('org_1', { evaluation_id, iteration_id })) {
       *   if (event.type === 'document') console.log(event.data.document_id, event.data.similarity);
       * }
       */
      events,
      /**
       * Where an iteration lives, from its id alone (ids are unique within an organization): for the reference SDK's
       * `/v1/evals/iterations/{iteration_id}` paths, which then call get, update or delete with it.
       */
      locate,
      /**
       * Changes an iteration's settings (the given ones over its own) or json_schema (same schema_data_id as the
       * evaluation, else 409), then extracts every document again under them. Unchanged settings and schema: the
       * iteration as it is, nothing re-run.
       */
      update,
    }),
  };
}

/**
 * The documents a predictions filter names, in its order, each once: read by id (never the whole evaluation). An id
 * the evaluation does not hold is a 422 at its index, as for a re-run's `document_ids`: a filter of ids is a
 * reference, and a reference to nothing is the client's mistake to hear about, not an empty answer.
 */
async function namedDocuments(ctx: OperationContext, organizationId: string, evaluationId: string, ids: readonly string[]): Promise<DocumentRecord[]> {
  const unique = [...new Set(ids)];
  const found = await readDocumentsById(ctx, organizationId, evaluationId, unique);
  const known = new Set(found.flatMap((d) => (d ? [d.id] : [])));
  const unknown = ids
    .map((id, i) => ({ id, i }))
    .filter(({ id }) => !known.has(id))
    .map(({ id, i }) => ({ path: `document_ids.${i}`, message: `no document ${id} in this evaluation` }));
  if (unknown.length > 0) throw invalidRequest(unknown);
  return found.filter((d): d is DocumentRecord => d !== null);
}

async function listIterations(ctx: OperationContext, organizationId: string, raw: ListIterationsInput): Promise<{ data: Array<Iteration | IterationSummary> }> {
  const input = parseInput(listIterationsInputSchema, raw);
  const evaluation = await requireEvaluation(ctx, organizationId, input.evaluation_id);
  const iterations = (await loadIterations(ctx, evaluation.value)).filter(
    (it) => input.model === undefined || it.inference_settings.model === input.model,
  );
  if (input.view === 'summary') {
    const tally = await documentTally(ctx, evaluation.value);
    return { data: await Promise.all(iterations.map((it) => renderIterationSummary(ctx, it, tally))) };
  }
  const documents = await readAllDocuments(ctx, organizationId, evaluation.value.id);
  const data: Iteration[] = [];
  for (const iteration of iterations) data.push(await renderIteration(ctx, iteration, documents));
  return { data };
}

async function createIteration(ctx: OperationContext, organizationId: string, raw: CreateIterationInput): Promise<Iteration | IterationSummary> {
  const input = parseInput(createIterationInputSchema, raw);
  const { value: evaluation } = await requireEvaluation(ctx, organizationId, input.evaluation_id);
  const settings = resolveSettings(input.inference_settings, evaluation.default_inference_settings, 'inference_settings');
  ctx.runner.assertServed(settings.model, 'inference_settings.model');
  await ctx.secrets.credentialsFor(organizationId, settings.model, 'inference_settings.model');
  const schema = resolveIterationSchema(ctx, evaluation, input.json_schema, 'json_schema');
  if (evaluation.iteration_ids.length >= ctx.limits.maxIterationsPerEvaluation) throw tooManyIterations(ctx);
  await assertBelowCap(ctx, organizationId);

  const now = ctx.now();
  const job = { id: newJobId(), selection: 'all' as const, started_at: now };
  const record = newIterationRecord({
    id: newIterationId(),
    organizationId,
    evaluationId: evaluation.id,
    settings,
    schema,
    status: 'queued',
    now,
    job,
    labels: { name: input.name ?? null, description: input.description ?? null, tags: input.tags ?? [] },
  });
  // Attached before it runs: a background iteration is visible (and resumable) at once.
  await ctx.storage.iterations.insert(record);
  let attached = false;
  try {
    await attachIteration(ctx, record);
    attached = true;
    // Takes one of the organization's places atomically (the check above is only the early answer).
    await registerJob(ctx, record, job);
  } catch (error) {
    if (attached) await detachIteration(ctx, record).catch(() => undefined);
    await discardIteration(ctx, record);
    throw error;
  }
  return startJob(ctx, record, input.background);
}

async function getIteration(ctx: OperationContext, organizationId: string, raw: GetIterationInput): Promise<Iteration | IterationSummary> {
  const input = parseInput(getIterationInputSchema, raw);
  const { evaluation, iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
  if (input.view === 'summary') return renderIterationSummary(ctx, iteration, documentTally(ctx, evaluation));
  return ctx.heavyReads.run(organizationId, async () =>
    renderIteration(ctx, iteration, await readAllDocuments(ctx, organizationId, evaluation.id)),
  );
}

async function processIteration(ctx: OperationContext, organizationId: string, raw: ProcessIterationInput): Promise<Iteration | IterationSummary> {
  const input = parseInput(processIterationInputSchema, raw);
  const found = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
  ctx.runner.assertServed(found.iteration.inference_settings.model, 'inference_settings.model');
  await ctx.secrets.credentialsFor(organizationId, found.iteration.inference_settings.model, 'inference_settings.model');
  let documents = await readAllDocuments(ctx, organizationId, found.evaluation.id);
  if (input.document_ids) {
    const known = new Set(documents.map((d) => d.id));
    const unknown = input.document_ids
      .map((id, i) => ({ id, i }))
      .filter(({ id }) => !known.has(id))
      .map(({ id, i }) => ({ path: `document_ids.${i}`, message: `no document ${id} in this evaluation` }));
    if (unknown.length > 0) throw invalidRequest(unknown);
    const wanted = new Set(input.document_ids);
    documents = documents.filter((d) => wanted.has(d.id));
  }
  if (input.only_missing && input.document_ids) {
    const predictions = await predictionsFor(ctx, organizationId, found.iteration.id, documents);
    documents = documents.filter((_, i) => {
      const p = predictions[i];
      return !p || p.status === 'failed' || p.metadata === null;
    });
  }
  const selection = input.document_ids ? { document_ids: documents.map((d) => d.id) } : input.only_missing ? ('missing' as const) : ('all' as const);
  return queueRun(ctx, found.iteration, selection, input.background);
}

async function predictions(ctx: OperationContext, organizationId: string, raw: ListPredictionsInput): Promise<PredictionPage> {
  const input = parseInput(listPredictionsInputSchema, raw);
  const { iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
  const page = input.document_ids
    ? pageOf(await namedDocuments(ctx, organizationId, input.evaluation_id, input.document_ids), { ...input, order: 'asc' })
    : await ctx.storage.documents.list(organizationId, input.evaluation_id, { limit: input.limit, after: input.after });
  if (!page) throw unknownCursor(input);
  return {
    data: await renderPredictionPage(ctx, iteration, page.items),
    list_metadata: listMetadata(page, input),
  };
}

async function deleteIteration(ctx: OperationContext, organizationId: string, raw: IterationRefInput): Promise<Deleted> {
  const input = parseInput(iterationRefInputSchema, raw);
  const updated = await updateRecord(ctx.storage.evaluations, organizationId, input.evaluation_id, (current) => {
    requireIterationOf(current, input.iteration_id);
    return {
      write: { ...current, iteration_ids: current.iteration_ids.filter((id) => id !== input.iteration_id), updated_at: ctx.now() },
      result: undefined,
    };
  });
  if (!updated) throw notFound('evaluation', input.evaluation_id);
  await ctx.jobRunner.cancel({ organization_id: organizationId, evaluation_id: input.evaluation_id, iteration_id: input.iteration_id });
  await ctx.storage.predictions.deleteAll(organizationId, input.iteration_id);
  await ctx.storage.events.deleteAll(organizationId, input.iteration_id);
  await ctx.storage.iterations.delete(organizationId, input.iteration_id);
  // Its job (if it was queued or running) frees its place in the organization's cap now, not at the next sweep.
  await unregisterIteration(ctx, organizationId, input.iteration_id);
  return { id: input.iteration_id, deleted: true, success: true };
}

async function cancel(ctx: OperationContext, organizationId: string, raw: IterationRefInput): Promise<IterationSummary> {
  const input = parseInput(iterationRefInputSchema, raw);
  const found = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
  const ref = refOf(found.iteration);
  // Local work stops first (no call starts once this returns), then the record says so for every server.
  await ctx.jobRunner.cancel(ref);
  const cancelled = await cancelJob(ctx, ctx.jobs, ref);
  const record = cancelled ?? (await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id)).iteration;
  return renderIterationSummary(ctx, record, documentTally(ctx, found.evaluation));
}

async function updateMetadata(ctx: OperationContext, organizationId: string, raw: UpdateIterationMetadataInput): Promise<IterationSummary> {
  const { evaluation_id, iteration_id, ...labels } = parseInput(updateIterationMetadataInputSchema, raw);
  const { evaluation } = await requireIteration(ctx, organizationId, evaluation_id, iteration_id);
  const changes = Object.fromEntries(Object.entries(labels).filter(([, value]) => value !== undefined));
  const changed = await updateRecord(ctx.storage.iterations, organizationId, iteration_id, (current) => ({
    write: { ...current, ...changes, updated_at: ctx.now() },
    result: undefined,
  }));
  if (!changed) throw notFound('iteration', iteration_id);
  return renderIterationSummary(ctx, changed.record.value, documentTally(ctx, evaluation));
}

function events(ctx: OperationContext, organizationId: string, raw: IterationEventsInput): AsyncIterable<IterationEvent> {
  return lazyEvents(async () => {
    const input = parseInput(iterationEventsInputSchema, raw);
    const { iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
    return subscribeEvents(ctx, iteration, input.last_event_id);
  });
}

async function locate(ctx: OperationContext, organizationId: string, raw: IterationIdInput): Promise<{ evaluation_id: string; iteration_id: string }> {
  const input = parseInput(iterationIdInputSchema, raw);
  const iteration = await ctx.storage.iterations.get(organizationId, input.iteration_id);
  if (!iteration) throw notFound('iteration', input.iteration_id);
  return { evaluation_id: iteration.value.evaluation_id, iteration_id: input.iteration_id };
}

async function update(ctx: OperationContext, organizationId: string, raw: UpdateIterationInput): Promise<Iteration> {
  const input = parseInput(updateIterationInputSchema, raw);
  const { evaluation, iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
  const settings = resolveSettings(input.inference_settings, iteration.inference_settings, 'inference_settings');
  ctx.runner.assertServed(settings.model, 'inference_settings.model');
  await ctx.secrets.credentialsFor(organizationId, settings.model, 'inference_settings.model');
  const schema = input.json_schema
    ? resolveIterationSchema(ctx, evaluation, input.json_schema, 'json_schema')
    : { json_schema: iteration.json_schema, schema_id: iteration.schema_id, schema_data_id: iteration.schema_data_id };
  const same = (a: InferenceSettings, b: InferenceSettings) =>
    (Object.keys({ ...a, ...b }) as Array<keyof InferenceSettings>).every((key) => a[key] === b[key]);
  if (schema.schema_id === iteration.schema_id && same(settings, iteration.inference_settings)) {
    return renderIteration(ctx, iteration, await readAllDocuments(ctx, organizationId, evaluation.id));
  }
  // Every document again under the new settings, written with the re-run's job in one step (a re-run the cap
  // refuses leaves the settings as they were): answered when it is done.
  return queueRun(ctx, iteration, 'all', false, { inference_settings: settings, model: settings.model, ...schema }) as Promise<Iteration>;
}
