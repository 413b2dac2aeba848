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
import { asError, DocevalsError, notFound } from '../errors.js';
import type { InferenceSettings } from '../schemas/index.js';
import type { DocumentRecord, IterationJob, IterationRecord } from '../storage.js';
import type { OperationContext } from './context.js';
import { newIterationId } from './ids.js';
import { attachIteration, detachIteration, discardIteration, restoreIteration, newIterationRecord, resolveIterationSchema, tooManyIterations } from './iteration-steps.js';
import { assertBelowCap, cancelJob, isActive, iterationEvents, lazyEvents, newJobId, registerJob, subscribeEvents, unregisterIteration, type IterationRef } from './jobs/index.js';
import { listMetadata, pageOf, unknownCursor } from './lists.js';
import { documentTally, renderIteration, renderIterationSummary, renderPredictionPage } from './render.js';
import { loadIterations, predictionsFor, readAllDocuments, readDocumentsById, requireEvaluation, requireIteration, requireIterationOf } from './reads.js';
import { resolveSettings } from './settings.js';
import { updateRecord } from './update-record.js';
import { ATTR, inSpan, SEMCONV, SPAN } from '../telemetry/index.js';
import { invalidRequest, parseInput } from './validate.js';

const refOf = (iteration: IterationRecord): IterationRef => ({
  organization_id: iteration.organization_id,
  evaluation_id: iteration.evaluation_id,
  iteration_id: iteration.id,
});

export function iterationOperations(ctx: OperationContext) {
  /**
   * Hands the job to the runner. Background: answers with the summary at once. Otherwise waits for the job's final
   * event and answers the whole iteration; every document failed is a 502 naming the kept iteration.
   */
  function startJob(record: IterationRecord, background: boolean): Promise<Iteration | IterationSummary> {
    // The iteration's span: where it was started. Its documents are its children wherever they run (a queue carries
    // the trace context to the workers); a background start ends it once the job is handed over.
    const attributes = {
      [ATTR.organization]: record.organization_id,
      [ATTR.evaluation]: record.evaluation_id,
      [ATTR.iteration]: record.id,
      [ATTR.job]: record.job?.id ?? '',
      [ATTR.background]: background,
      [SEMCONV.genAiRequestModel]: record.inference_settings.model,
    };
    return inSpan(SPAN.iteration, { attributes }, () => runJob(record, background));
  }

  async function runJob(record: IterationRecord, background: boolean): Promise<Iteration | IterationSummary> {
    const ref = refOf(record);
    const job = record.job!;
    if (background) {
      await ctx.jobRunner.enqueue(ref);
      const current = (await ctx.storage.iterations.get(record.organization_id, record.id))?.value ?? record;
      return renderIterationSummary(ctx, current, documentTally(ctx, { organization_id: record.organization_id, id: record.evaluation_id }));
    }
    const events = iterationEvents(ctx, ctx.jobs, record, undefined);
    const waiter: { error?: unknown } = {};
    ctx.jobs.waiting.set(job.id, waiter);
    try {
      await ctx.jobRunner.enqueue(ref);
      for await (const event of events) if (event.type !== 'document' && event.type !== 'progress') break;
    } finally {
      ctx.jobs.waiting.delete(job.id);
    }
    if (waiter.error !== undefined) throw asError(waiter.error);
    const { evaluation, iteration } = await requireIteration(ctx, record.organization_id, record.evaluation_id, record.id);
    if (iteration.job?.id === job.id && iteration.status === 'failed') {
      throw new DocevalsError('extractor_error', `The iteration ${iteration.id} failed: ${iteration.error ?? 'every document failed'}`, {
        iteration_id: iteration.id,
      });
    }
    return renderIteration(ctx, iteration, await readAllDocuments(ctx, record.organization_id, evaluation.id));
  }

  /**
   * The documents a predictions filter names, in its order, each once: read by id (never the whole evaluation). An id
   * the evaluation does not hold is a 422 at its index, as for a re-run's `document_ids`: a filter of ids is a
   * reference, and a reference to nothing is the client's mistake to hear about, not an empty answer.
   */
  async function namedDocuments(organizationId: string, evaluationId: string, ids: readonly string[]): Promise<DocumentRecord[]> {
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

  /**
   * Every iteration, oldest first: the interface's shape, or summaries with `view: 'summary'`.
   */
  function list(organizationId: string, input: ListIterationsInput & { view: 'summary' }): Promise<{ data: IterationSummary[] }>;
  function list(organizationId: string, input: ListIterationsInput & { view?: 'full' }): Promise<{ data: Iteration[] }>;
  function list(organizationId: string, input: ListIterationsInput): Promise<{ data: Array<Iteration | IterationSummary> }>;
  async function list(organizationId: string, raw: ListIterationsInput): Promise<{ data: Array<Iteration | IterationSummary> }> {
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

  /**
   * Runs an iteration over the evaluation's documents. Without `background`, answers when it is done; every
   * document failed: a 502 `extractor_error` naming the kept iteration. With `background: true`, answers at once
   * with the summary (`queued` / `running`): follow it with `events` or `get`.
   */
  function create(organizationId: string, input: CreateIterationInput & { background: true }): Promise<IterationSummary>;
  function create(organizationId: string, input: CreateIterationInput & { background?: false }): Promise<Iteration>;
  function create(organizationId: string, input: CreateIterationInput): Promise<Iteration | IterationSummary>;
  async function create(organizationId: string, raw: CreateIterationInput): Promise<Iteration | IterationSummary> {
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
    return startJob(record, input.background);
  }

  /**
   * The interface's shape, or a summary with `view: 'summary'`.
   */
  function get(organizationId: string, input: GetIterationInput & { view: 'summary' }): Promise<IterationSummary>;
  function get(organizationId: string, input: GetIterationInput & { view?: 'full' }): Promise<Iteration>;
  function get(organizationId: string, input: GetIterationInput): Promise<Iteration | IterationSummary>;
  async function get(organizationId: string, raw: GetIterationInput): Promise<Iteration | IterationSummary> {
    const input = parseInput(getIterationInputSchema, raw);
    const { evaluation, iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
    if (input.view === 'summary') return renderIterationSummary(ctx, iteration, documentTally(ctx, evaluation));
    return ctx.heavyReads.run(organizationId, async () =>
      renderIteration(ctx, iteration, await readAllDocuments(ctx, organizationId, evaluation.id)),
    );
  }

  /**
   * Re-runs documents as a new job (`background` as for create); 409 while the iteration's job is active.
   */
  function process(organizationId: string, input: ProcessIterationInput & { background: true }): Promise<IterationSummary>;
  function process(organizationId: string, input: ProcessIterationInput & { background?: false }): Promise<Iteration>;
  function process(organizationId: string, input: ProcessIterationInput): Promise<Iteration | IterationSummary>;
  async function process(organizationId: string, raw: ProcessIterationInput): Promise<Iteration | IterationSummary> {
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
    return queueRun(found.iteration, selection, input.background);
  }

  /**
   * Queues a new job on an existing iteration (a re-run, or `update`'s run under `changes`): one compare-and-set
   * writes the job and the changes together, then the job takes its place in the organization's cap. Refused there,
   * the iteration goes back to the record that compare-and-set replaced (not the one read earlier in the request,
   * which a job ending meanwhile would have made stale).
   */
  async function queueRun(iteration: IterationRecord, selection: IterationJob['selection'], background: boolean, changes: Partial<IterationRecord> = {}) {
    const organizationId = iteration.organization_id;
    await assertBelowCap(ctx, organizationId);
    const job = { id: newJobId(), selection, started_at: ctx.now() };
    const queued = await updateRecord(ctx.storage.iterations, organizationId, iteration.id, (current) => {
      if (isActive(current.status) && current.job) {
        throw new DocevalsError('conflict', `The iteration ${current.id} is ${current.status}: cancel it or wait until it ends.`);
      }
      const next: IterationRecord = { ...current, ...changes, status: 'queued', job, started_at: null, finished_at: null, error: null, lease: null, updated_at: ctx.now() };
      return { write: next, result: { before: current, next } };
    });
    if (!queued) throw notFound('iteration', iteration.id);
    try {
      await registerJob(ctx, queued.result.next, job);
    } catch (error) {
      await restoreIteration(ctx, queued.result.before, job.id, Object.keys(changes) as Array<keyof IterationRecord>).catch(() => undefined);
      throw error;
    }
    // The previous job's events go: a stream of this iteration follows the new job.
    await ctx.storage.events.deleteAll(organizationId, iteration.id);
    return startJob(queued.result.next, background);
  }

  return {
    list,

    create,

    get,

    /**
     * A page of predictions with their metrics, in the evaluation's document order; with `document_ids`, of those
     * documents only (read by id), in that order. An id the evaluation does not hold is a 422 at its index.
     *
     * @example
     * const { data: [one] } = await docevals.evals.iterations.predictions('org_1', { evaluation_id, iteration_id, document_ids: [documentId] });
     */
    async predictions(organizationId: string, raw: ListPredictionsInput): Promise<PredictionPage> {
      const input = parseInput(listPredictionsInputSchema, raw);
      const { iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
      const page = input.document_ids
        ? pageOf(await namedDocuments(organizationId, input.evaluation_id, input.document_ids), { ...input, order: 'asc' })
        : await ctx.storage.documents.list(organizationId, input.evaluation_id, { limit: input.limit, after: input.after });
      if (!page) throw unknownCursor(input);
      return {
        data: await renderPredictionPage(ctx, iteration, page.items),
        list_metadata: listMetadata(page, input),
      };
    },

    async delete(organizationId: string, raw: IterationRefInput): Promise<Deleted> {
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
    },

    process,

    /**
     * Stops the iteration's job: no new extractor call, calls in flight aborted, predictions so far kept, status
     * `cancelled`. An iteration not queued or running is answered as it is.
     */
    async cancel(organizationId: string, raw: IterationRefInput): Promise<IterationSummary> {
      const input = parseInput(iterationRefInputSchema, raw);
      const found = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
      const ref = refOf(found.iteration);
      // Local work stops first (no call starts once this returns), then the record says so for every server.
      await ctx.jobRunner.cancel(ref);
      const cancelled = await cancelJob(ctx, ctx.jobs, ref);
      const record = cancelled ?? (await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id)).iteration;
      return renderIterationSummary(ctx, record, documentTally(ctx, found.evaluation));
    },

    /**
     * Names, describes or tags the iteration (omitted labels stay; null or `[]` clears one). Labels only: nothing
     * runs again, and it works while the iteration runs (the record's compare-and-set keeps the job's writes).
     *
     * @example
     * await docevals.evals.iterations.updateMetadata('org_1', { evaluation_id, iteration_id, name: 'gpt-4.1, prompt v2', tags: ['baseline'] });
     */
    async updateMetadata(organizationId: string, raw: UpdateIterationMetadataInput): Promise<IterationSummary> {
      const { evaluation_id, iteration_id, ...labels } = parseInput(updateIterationMetadataInputSchema, raw);
      const { evaluation } = await requireIteration(ctx, organizationId, evaluation_id, iteration_id);
      const changes = Object.fromEntries(Object.entries(labels).filter(([, value]) => value !== undefined));
      const changed = await updateRecord(ctx.storage.iterations, organizationId, iteration_id, (current) => ({
        write: { ...current, ...changes, updated_at: ctx.now() },
        result: undefined,
      }));
      if (!changed) throw notFound('iteration', iteration_id);
      return renderIterationSummary(ctx, changed.record.value, documentTally(ctx, evaluation));
    },

    /**
     * The iteration's events (`document`, `progress`, final `completed` / `failed` / `cancelled`) as they happen;
     * ends after the final one. `last_event_id` resumes just after that event. Break out of the loop to stop.
     *
     * @example
     * for await (const event of docevals.evals.iterations.events('org_1', { evaluation_id, iteration_id })) {
     *   if (event.type === 'document') console.log(event.data.document_id, event.data.similarity);
     * }
     */
    events(organizationId: string, raw: IterationEventsInput): AsyncIterable<IterationEvent> {
      return lazyEvents(async () => {
        const input = parseInput(iterationEventsInputSchema, raw);
        const { iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
        return subscribeEvents(ctx, iteration, input.last_event_id);
      });
    },

    /**
     * Where an iteration lives, from its id alone (ids are unique within an organization): for the reference SDK's
     * `/v1/evals/iterations/{iteration_id}` paths, which then call get, update or delete with it.
     */
    async locate(organizationId: string, raw: IterationIdInput): Promise<{ evaluation_id: string; iteration_id: string }> {
      const input = parseInput(iterationIdInputSchema, raw);
      const iteration = await ctx.storage.iterations.get(organizationId, input.iteration_id);
      if (!iteration) throw notFound('iteration', input.iteration_id);
      return { evaluation_id: iteration.value.evaluation_id, iteration_id: input.iteration_id };
    },

    /**
     * Changes an iteration's settings (the given ones over its own) or json_schema (same schema_data_id as the
     * evaluation, else 409), then extracts every document again under them. Unchanged settings and schema: the
     * iteration as it is, nothing re-run.
     */
    async update(organizationId: string, raw: UpdateIterationInput): Promise<Iteration> {
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
      return queueRun(iteration, 'all', false, { inference_settings: settings, model: settings.model, ...schema }) as Promise<Iteration>;
    },
  };
}
