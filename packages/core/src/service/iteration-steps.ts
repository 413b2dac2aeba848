import pLimit from 'p-limit';
import { DocevalsError, notFound } from '../errors.js';
import type { ExtractionDocument, ProviderCredentials } from '../extractor.js';
import type { JsonObject } from '../json/assert-json.js';
import type { InferenceSettings } from '../schemas/index.js';
import type { DocumentRecord, EvaluationRecord, IterationJob, IterationRecord, IterationStatus, PredictionRecord } from '../storage.js';
import type { ServiceContext } from './context.js';
import { loadExtractionDocuments } from './document-files.js';
import { refreshPrediction } from './every-iteration.js';
import { checkJsonSchema, schemaStructureConflict, type SchemaIds } from './json-schemas.js';
import { newPredictionRecord } from './metric-cache.js';
import { yieldToEventLoop } from '../time-slice.js';
import { updateRecord } from './update-record.js';

/**
 * The named steps of running an iteration, shared by iteration create, re-run (process) and the evaluation import:
 * choose the schema, build the record, attach the iteration to its evaluation, and run documents saving each
 * prediction as it completes (what a job runner calls: jobs/outcomes.ts records the outcome).
 */

export type IterationSchema = { json_schema: JsonObject } & SchemaIds;

/**
 * The iteration's schema: the evaluation's, or an override that must keep the evaluation's structure
 * (schema_data_id; 409 otherwise, docs/spec/service.md).
 */
export function resolveIterationSchema(
  ctx: ServiceContext,
  evaluation: IterationSchema,
  override: JsonObject | undefined,
  path: string,
): IterationSchema {
  if (!override) return { json_schema: evaluation.json_schema, schema_id: evaluation.schema_id, schema_data_id: evaluation.schema_data_id };
  const ids = checkJsonSchema(override, path, ctx.limits.maxJsonSchemaBytes);
  if (ids.schema_data_id !== evaluation.schema_data_id) throw schemaStructureConflict(evaluation.schema_data_id, ids.schema_data_id, path);
  return { json_schema: override, ...ids };
}

/** The iteration record, written in one place. `running` records get `started_at`; `completed` ones both times. */
export function newIterationRecord(fields: {
  id: string;
  organizationId: string;
  evaluationId: string;
  settings: InferenceSettings;
  schema: IterationSchema;
  status: Extract<IterationStatus, 'queued' | 'running' | 'completed'>;
  now: string;
  /** The job that will run it (created iterations); null for imported ones. */
  job?: IterationJob | null;
  /** Its name, description and tags, when given. */
  labels?: Pick<IterationRecord, 'name' | 'description' | 'tags'>;
}): IterationRecord {
  return {
    id: fields.id,
    organization_id: fields.organizationId,
    evaluation_id: fields.evaluationId,
    inference_settings: fields.settings,
    model: fields.settings.model,
    json_schema: fields.schema.json_schema,
    schema_id: fields.schema.schema_id,
    schema_data_id: fields.schema.schema_data_id,
    status: fields.status,
    started_at: fields.status === 'queued' ? null : fields.now,
    finished_at: fields.status === 'completed' ? fields.now : null,
    error: null,
    lease: null,
    job: fields.job ?? null,
    ...fields.labels,
    created_at: fields.now,
    updated_at: fields.now,
  };
}

export function tooManyIterations(ctx: ServiceContext) {
  return new DocevalsError(
    'validation_error',
    `The evaluation already has ${ctx.limits.maxIterationsPerEvaluation} iterations, the limit; delete some first.`,
    { issues: [{ path: '', message: 'iteration limit reached' }] },
  );
}

const noop = () => undefined;

/** Resolves `lastInFlight` once `left` documents of a chunk are over (its others can then all be in flight). */
function chunkProgress(left: number) {
  let finished = 0;
  let resolve!: () => void;
  const lastInFlight = new Promise<void>((r) => (resolve = r));
  if (left <= 0) resolve();
  return { lastInFlight, over: () => void (++finished >= left && resolve()) };
}

/**
 * A run's limit and stop. One limit over the whole run: a chunk's calls start once the previous chunk's last
 * documents are all in flight (no wave of calls waits for the slowest of a chunk), never more than `concurrency` at
 * once in all (inside the job's own slot, when it has one). The stop follows the job's signal, and a failed save
 * stops the calls too (the next chunk's, which may have started): the run is over.
 */
function runControls(ctx: ServiceContext, job: { signal?: AbortSignal; slot?: <T>(fn: () => Promise<T>) => Promise<T> }) {
  const shared = pLimit(ctx.concurrency);
  const slot = job.slot;
  const runSlot = slot ? <T>(fn: () => Promise<T>) => shared(() => slot(fn)) : <T>(fn: () => Promise<T>) => shared(fn);
  const stop = new AbortController();
  const stopWithJob = () => stop.abort(job.signal?.reason);
  if (job.signal?.aborted) stopWithJob();
  job.signal?.addEventListener('abort', stopWithJob, { once: true });
  return { runSlot, stop, detach: () => job.signal?.removeEventListener('abort', stopWithJob) };
}

/** What a run of documents gave: the first error, for an iteration where every document failed. */
export interface RunOutcome {
  firstError: string | null;
}

/**
 * Runs the extractor over these documents of this iteration and saves each prediction as soon as it is ready, in
 * chunks so that only a bounded number of files is held in memory at once (within a chunk the runner keeps its
 * concurrency limit full). `mode`:
 * - `insert`: the iteration is new and not yet attached to its evaluation; each prediction is inserted
 *   (`put(..., 0)`); the caller settles edits and deletions made meanwhile.
 * - `replace`: an attached iteration (every job); each prediction overwrites any old one and is then settled against
 *   the document as stored now (removed if the document went, metrics refreshed if its annotation changed).
 */
export async function runDocuments(
  ctx: ServiceContext,
  iteration: IterationRecord,
  documents: readonly DocumentRecord[],
  mode: 'insert' | 'replace',
  job: {
    /** Stops the run: no new extractor call, calls in flight aborted, their documents not saved. */
    signal?: AbortSignal;
    /** Written on each prediction (`job_id`). */
    jobId?: string;
    /**
     * Saves one prediction and, in `replace` mode, sees that it is settled against `document` as stored now (the
     * in-process job's group commit settles each batch it writes with one read; a queue batch settles its documents
     * in one read after its last save); default: `predictions.put` (insert-only in `insert` mode), then in `replace`
     * mode {@link settleSaved} of that one document.
     */
    save?: (prediction: PredictionRecord, document: DocumentRecord) => Promise<void>;
    /** Called after each prediction is saved (the job's document event). */
    onSaved?: (prediction: PredictionRecord) => Promise<void>;
    /** Called when a document's extraction is over, before its prediction is saved (a queue starts its next call). */
    onExtracted?: (document: DocumentRecord) => void;
    /** A slot each extractor attempt also takes (the in-process runner's fair slots). */
    slot?: <T>(fn: () => Promise<T>) => Promise<T>;
    /**
     * The organization's key for the iteration's model, read by the caller once for many runs (a queue's batch runs
     * one document at a time); default: read here, once for this run.
     */
    credentials?: Promise<ProviderCredentials | undefined>;
    /** Reads a document's file for its call; default: read here, a chunk at a time (a queue batch reads ahead). */
    load?: (document: DocumentRecord) => Promise<ExtractionDocument>;
  } = {},
): Promise<RunOutcome> {
  const organizationId = iteration.organization_id;
  let firstError: string | null = null;
  const chunkSize = Math.max(64, ctx.concurrency * 8);
  const load = (start: number) => {
    const chunk = documents.slice(start, start + chunkSize);
    // A chunk's files in one read (the store's getMany) unless the caller reads them its way.
    const loading = job.load ? Promise.all(chunk.map(job.load)) : loadExtractionDocuments(ctx, organizationId, chunk);
    loading.catch(() => undefined); // awaited below, or dropped when the run stops first
    return loading;
  };
  // Saves run beside the extraction: a chunk's last saves never hold up the next chunk, whose files are read while
  // the current one is extracted. A failed save stops the run; every save ends before the return.
  const saves = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  // The key of the organization that runs the iteration (read once per run; a 422 when its provider has none).
  const credentials = documents.length > 0 ? await (job.credentials ?? credentialsOf(ctx, iteration)) : undefined;
  let next = documents.length > 0 ? load(0) : null;
  const { runSlot, stop, detach } = runControls(ctx, job);
  const extracting: Array<Promise<unknown>> = [];
  for (let start = 0; start < documents.length; start += chunkSize) {
    if (stop.signal.aborted || failure) break;
    const chunk = documents.slice(start, start + chunkSize);
    const loaded = await next!;
    next = start + chunkSize < documents.length ? load(start + chunkSize) : null;
    const { lastInFlight, over } = chunkProgress(chunk.length - ctx.concurrency);
    const running = ctx.runner.extractAll(loaded, iteration.json_schema, iteration.inference_settings, {
      signal: stop.signal,
      slot: runSlot,
      ...(credentials ? { credentials } : {}),
      onDocument: async (index, result) => {
        over();
        if (failure) return;
        const document = chunk[index]!;
        job.onExtracted?.(document);
        // Model calls first: the next call has started (the runner's free slot, or a queue's onExtracted) and its
        // request is still being built in the SDK's microtasks; this document's metrics and writes wait one macrotask
        // so that the request goes out before them (docs/benchmarks.md, "Issue 31, session 13").
        await yieldToEventLoop();
        if (failure) return;
        const record = newPredictionRecord(iteration, document, result, ctx.now());
        if (job.jobId !== undefined) record.job_id = job.jobId;
        if (record.status === 'failed' && firstError === null) firstError = String(result.metadata?.error);
        const saving = saveOne(document, record).catch((error: unknown) => {
          failure ??= { error };
          stop.abort('failed');
        });
        saves.add(saving);
        void saving.then(() => saves.delete(saving));
      },
    });
    extracting.push(running);
    await Promise.race([lastInFlight, running.then(noop, noop)]);
  }
  const settled = await Promise.allSettled(extracting);
  detach();
  while (saves.size > 0) await Promise.all([...saves]);
  if (failure) throw (failure as { error: unknown }).error;
  const rejected = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
  return { firstError };

  async function saveOne(document: DocumentRecord, record: PredictionRecord): Promise<void> {
    if (job.save) await job.save(record, document);
    else {
      await ctx.storage.predictions.put(record, mode === 'insert' ? 0 : undefined);
      if (mode === 'replace') await settleSaved(ctx, iteration, [document]);
    }
    if (job.onSaved) await job.onSaved(record);
  }
}

/**
 * Settles predictions of `iteration` just saved against their documents as stored now: the usual case costs one read
 * for them all (each document is as it was when its metrics were computed); a prediction whose document was edited
 * or deleted meanwhile is refreshed or removed.
 */
export async function settleSaved(ctx: ServiceContext, iteration: IterationRecord, documents: readonly DocumentRecord[]): Promise<void> {
  if (documents.length === 0) return;
  const { organization_id: organizationId, evaluation_id: evaluationId } = iteration;
  const current = await ctx.storage.documents.getMany(organizationId, evaluationId, documents.map((d) => d.id));
  for (const [i, document] of documents.entries()) {
    if (current[i]?.value.revision !== document.revision) await refreshPrediction(ctx, organizationId, evaluationId, iteration.id, document.id);
  }
}

/**
 * Attaches a new iteration to its evaluation: one compare-and-set that re-checks the rules against the evaluation as
 * it is now (its schema may have changed while the extractor ran; the limit on iterations).
 */
export async function attachIteration(ctx: ServiceContext, iteration: IterationRecord): Promise<EvaluationRecord> {
  const appended = await updateRecord(ctx.storage.evaluations, iteration.organization_id, iteration.evaluation_id, (current) => {
    if (current.schema_data_id !== iteration.schema_data_id) {
      throw schemaStructureConflict(current.schema_data_id, iteration.schema_data_id, 'json_schema');
    }
    if (current.iteration_ids.length >= ctx.limits.maxIterationsPerEvaluation) throw tooManyIterations(ctx);
    return {
      write: { ...current, iteration_ids: [...current.iteration_ids, iteration.id], updated_at: ctx.now() },
      result: undefined,
    };
  });
  if (!appended) throw notFound('evaluation', iteration.evaluation_id);
  return appended.record.value;
}

/** Removes an iteration that could not be attached: its predictions, then its record. */
export async function discardIteration(ctx: ServiceContext, iteration: IterationRecord): Promise<void> {
  await ctx.storage.predictions.deleteAll(iteration.organization_id, iteration.id).catch(() => undefined);
  await ctx.storage.iterations.delete(iteration.organization_id, iteration.id).catch(() => undefined);
}


/** Takes an iteration that could not be registered off its evaluation's list again. */
export async function detachIteration(ctx: ServiceContext, record: IterationRecord): Promise<void> {
  await updateRecord(ctx.storage.evaluations, record.organization_id, record.evaluation_id, (current) =>
    current.iteration_ids.includes(record.id)
      ? { write: { ...current, iteration_ids: current.iteration_ids.filter((id) => id !== record.id), updated_at: ctx.now() }, result: undefined }
      : { skip: true, result: undefined },
  );
}

/**
 * A re-run whose job could not be registered (refused by the cap, raced, or failed): the fields the re-run wrote (its
 * job's and `changed`) go back to `before`, the record its compare-and-set replaced, unless another call moved the
 * iteration since (its job is no longer `jobId`). Other fields (labels changed meanwhile) stay as they are.
 */
export async function restoreIteration(ctx: ServiceContext, before: IterationRecord, jobId: string, changed: ReadonlyArray<keyof IterationRecord> = []): Promise<void> {
  const restored: Partial<IterationRecord> = {};
  for (const key of [...RUN_FIELDS, ...changed]) Object.assign(restored, { [key]: before[key] });
  await updateRecord(ctx.storage.iterations, before.organization_id, before.id, (current) =>
    current.job?.id === jobId ? { write: { ...current, ...restored, updated_at: ctx.now() }, result: undefined } : { skip: true, result: undefined },
  );
}

/** The fields a queued run writes over an iteration's record. */
const RUN_FIELDS = ['status', 'job', 'started_at', 'finished_at', 'error', 'lease'] as const satisfies ReadonlyArray<keyof IterationRecord>;

/** The key the organization runs `iteration`'s model with (a 422 when its provider has none). */
export function credentialsOf(ctx: ServiceContext, iteration: IterationRecord): Promise<ProviderCredentials | undefined> {
  return ctx.secrets.credentialsFor(iteration.organization_id, iteration.inference_settings.model, 'inference_settings.model');
}
