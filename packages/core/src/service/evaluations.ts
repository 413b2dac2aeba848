import { DocevalsError, notFound, type ErrorIssue } from '../errors.js';
import {
  createEvaluationInputSchema,
  duplicateEvaluationInputSchema,
  evaluationRefInputSchema,
  getEvaluationInputSchema,
  listEvaluationsInputSchema,
  updateEvaluationInputSchema,
  type CreateEvaluationInput,
  type Deleted,
  type DuplicateEvaluationInput,
  type Evaluation,
  type EvaluationOverview,
  type EvaluationRefInput,
  type EvaluationSummary,
  type GetEvaluationInput,
  type ListEvaluationsInput,
  type ListResult,
  type UpdateEvaluationInput,
} from '../schemas/index.js';
import pLimit from 'p-limit';
import type { DocumentRecord, EvaluationRecord, IterationRecord, PredictionRecord, StoredFile } from '../storage.js';
import type { OperationContext, ServiceContext } from './context.js';
import { describeFiles, prepareDocuments, releaseFiles, retainFiles, toDocumentRecord, type PreparedDocument } from './document-files.js';
import { bindContext } from './bind-context.js';
import { assertExpandLimit } from './documents.js';
import { newEvaluationId, newIterationId, newRevision } from './ids.js';
import { assertAnnotations } from '../json-schema/annotation.js';
import { newIterationRecord, resolveIterationSchema, type IterationSchema } from './iteration-steps.js';
import { checkJsonSchema, schemaStructureConflict } from './json-schemas.js';
import { listMetadata, readPage } from './lists.js';
import { newPredictionRecord } from './metric-cache.js';
import { readAllDocuments, requireEvaluation } from './reads.js';
import { renderEvaluation, renderEvaluationOverview, renderEvaluationSummary } from './render.js';
import { resolveSettings } from './settings.js';
import { retryCompareAndSet, updateRecord } from './update-record.js';
import { invalidRequest, parseInput } from './validate.js';

export { requireEvaluation } from './reads.js';

type ParsedCreate = ReturnType<typeof createEvaluationInputSchema.parse>;

/** What a document of the request will be, before its file is described: enough to match and score predictions. */
interface PlannedDocument {
  prepared: PreparedDocument;
  id: string;
  annotation: PreparedDocument['annotation'];
  revision: string;
}

/** An imported iteration (docs/spec/service.md, Evaluations): its record and its predictions' records. */
interface PlannedIteration {
  record: IterationRecord;
  predictions: PredictionRecord[];
}

/** Builds the records of the iterations imported with a new evaluation; every issue is a 422 before anything is stored. */
function planIterations(
  ctx: ServiceContext,
  organizationId: string,
  evaluationId: string,
  input: ParsedCreate,
  schema: IterationSchema,
  documents: PlannedDocument[],
): PlannedIteration[] {
  const now = ctx.now();
  const seenIds = new Set<string>();
  return input.iterations.map((iteration, i) => {
    const path = `iterations.${i}`;
    const settings = resolveSettings(iteration.inference_settings, input.default_inference_settings, `${path}.inference_settings`);
    const chosen = resolveIterationSchema(ctx, schema, iteration.json_schema, `${path}.json_schema`);
    const id = iteration.id ?? newIterationId();
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) {
      throw invalidRequest([{ path: `${path}.id`, message: 'an id is 1 to 128 letters, digits, "_" or "-"' }]);
    }
    if (seenIds.has(id)) throw invalidRequest([{ path: `${path}.id`, message: `iteration id ${id} appears twice` }]);
    seenIds.add(id);
    const record = newIterationRecord({ id, organizationId, evaluationId, settings, schema: chosen, status: 'completed', now });
    return { record, predictions: matchPredictions(record, iteration.predictions, documents, path, now) };
  });
}

/** Matches imported predictions to documents: by `document_id` when every one has it, else by position. */
function matchPredictions(
  iteration: IterationRecord,
  predictions: ParsedCreate['iterations'][number]['predictions'],
  documents: PlannedDocument[],
  path: string,
  now: string,
): PredictionRecord[] {
  const out = new Map<string, PredictionRecord>();
  const byId = predictions.length > 0 && predictions.every((p) => p.document_id !== undefined);
  if (!byId && predictions.length !== documents.length) {
    throw invalidRequest([
      {
        path: `${path}.predictions`,
        message: `${predictions.length} predictions for ${documents.length} documents: give one per document, or a document_id on each`,
      },
    ]);
  }
  const issues: ErrorIssue[] = [];
  const known = new Map(documents.map((d) => [d.id, d]));
  predictions.forEach((p, j) => {
    const document = byId ? known.get(p.document_id!) : documents[j]!;
    if (!document) {
      issues.push({ path: `${path}.predictions.${j}.document_id`, message: `no document ${p.document_id} in this evaluation` });
      return;
    }
    if (!byId && p.document_id !== undefined && p.document_id !== document.id) {
      issues.push({ path: `${path}.predictions.${j}.document_id`, message: `prediction ${j} is for document ${document.id} by position` });
      return;
    }
    if (out.has(document.id)) {
      issues.push({ path: `${path}.predictions.${j}.document_id`, message: `a second prediction for document ${document.id}` });
      return;
    }
    out.set(document.id, newPredictionRecord(iteration, document, { prediction: p.prediction, metadata: p.metadata ?? null }, now));
  });
  if (issues.length > 0) throw invalidRequest(issues);
  // In document order, so that the stored order follows the evaluation's.
  return documents.map((d) => out.get(d.id)).filter((p): p is PredictionRecord => p !== undefined);
}

/** How many evaluations of a list page are rendered at once. */
const LIST_RENDER_CONCURRENCY = 4;

export function evaluationOperations(ctx: OperationContext) {
  /**
   * The interface's Evaluation (every document with its content, every iteration whole), or with `view: 'summary'`
   * the evaluation without its documents: `document_count` and iterations as summaries, at a cost that does not grow
   * with the documents.
   *
   * @example
   * const { name, document_count } = await docevals.evals.get('org_1', { evaluation_id, view: 'summary' });
   */
  function get(organizationId: string, input: GetEvaluationInput & { view: 'summary' }): Promise<EvaluationOverview>;
  function get(organizationId: string, input: GetEvaluationInput & { view?: 'full' }): Promise<Evaluation>;
  function get(organizationId: string, input: GetEvaluationInput): Promise<Evaluation | EvaluationOverview>;
  function get(organizationId: string, input: GetEvaluationInput): Promise<Evaluation | EvaluationOverview> {
    return getEvaluation(ctx, organizationId, input);
  }

  return {
    get,
    ...bindContext(ctx, {
      /**
       * One file commit (`retainMany`), one document commit (`insertMany`), one record and one prediction batch per
       * imported iteration, then the evaluation record, which makes it all visible. Undone in reverse on failure.
       */
      create: createEvaluation,
      /**
       * A copy of the evaluation under a new id: its json_schema, project, default settings and documents (the same
       * stored files, one more reference each; annotations with their metadata), not its iterations. One file commit
       * (`retainMany`), one document commit (`insertMany`), then the record, which makes the copy visible; undone on
       * failure. Answers the copy's summary (`document_count`, no documents), at a cost that does not grow with them.
       *
       * @example
       * const copy = await docevals.evals.duplicate('org_1', { evaluation_id, name: 'Invoices, prompt v2' });
       */
      duplicate,
      /** Summaries: documents without contents (whole with `expand: 'documents'`), iterations without per-document arrays. */
      list: listEvaluations,
      update: updateEvaluation,
      /**
       * The evaluation record first, at the version read (so the iterations deleted are the ones it listed), then its
       * documents in one step and its iterations' predictions, then one release of the file references. A document
       * deleted meanwhile released its own file (it deleted its record first), so no file is released twice.
       */
      delete: deleteEvaluation,
    }),
  };
}

async function getEvaluation(ctx: ServiceContext, organizationId: string, raw: GetEvaluationInput): Promise<Evaluation | EvaluationOverview> {
  const input = parseInput(getEvaluationInputSchema, raw);
  const found = await requireEvaluation(ctx, organizationId, input.evaluation_id);
  if (input.view === 'summary') return renderEvaluationOverview(ctx, found.value);
  return ctx.heavyReads.run(organizationId, () => renderEvaluation(ctx, found.value));
}

async function createEvaluation(ctx: OperationContext, organizationId: string, raw: CreateEvaluationInput): Promise<Evaluation> {
  const input = parseInput(createEvaluationInputSchema, raw);
  const ids = checkJsonSchema(input.json_schema, 'json_schema', ctx.limits.maxJsonSchemaBytes);
  if (input.documents.length > ctx.limits.maxDocumentsPerEvaluation) {
    throw invalidRequest([{ path: 'documents', message: `at most ${ctx.limits.maxDocumentsPerEvaluation} documents per evaluation` }]);
  }
  if (input.iterations.length > ctx.limits.maxIterationsPerEvaluation) {
    throw invalidRequest([{ path: 'iterations', message: `at most ${ctx.limits.maxIterationsPerEvaluation} iterations per evaluation` }]);
  }
  assertAnnotations(input.json_schema, input.documents.map((d, i) => ({ annotation: d.annotation, path: `documents.${i}.annotation` })), input.validate);
  const prepared = prepareDocuments(input.documents, 'documents');
  const planned: PlannedDocument[] = prepared.map((d) => ({ prepared: d, id: d.file_id, annotation: d.annotation, revision: newRevision() }));
  const id = input.id ?? newEvaluationId();
  const iterations = planIterations(ctx, organizationId, id, input, { json_schema: input.json_schema, ...ids }, planned);
  // An id that is taken fails before anything is stored.
  if (await ctx.storage.evaluations.get(organizationId, id)) {
    throw new DocevalsError('conflict', `An evaluation with id "${id}" already exists; choose another id or omit it.`);
  }
  await retainFiles(ctx, organizationId, prepared);
  const now = ctx.now();
  let documentsInserted = false;
  const inserted: IterationRecord[] = [];
  try {
    const files = await describeFiles(ctx, organizationId, prepared);
    const documents: DocumentRecord[] = planned.map((d, i) =>
      toDocumentRecord(d.prepared, files[i]!, { organization_id: organizationId, evaluation_id: id }, d.revision, now),
    );
    if (documents.length > 0) {
      await ctx.storage.documents.insertMany(documents);
      documentsInserted = true;
    }
    // Iterations before the evaluation: they are invisible until the evaluation that lists them exists. Each is its
    // own parent, so they are written side by side (a store with several connections writes them at once); every
    // write is over before a failure undoes them.
    const written = await Promise.allSettled(
      iterations.map(async (iteration) => {
        await ctx.storage.iterations.insert(iteration.record);
        inserted.push(iteration.record);
        if (iteration.predictions.length > 0) await ctx.storage.predictions.insertMany(iteration.predictions);
      }),
    );
    const failed = written.find((w) => w.status === 'rejected');
    if (failed) throw failed.reason;
    const record: EvaluationRecord = {
      id,
      organization_id: organizationId,
      name: input.name,
      project_id: input.project_id,
      json_schema: input.json_schema,
      ...ids,
      default_inference_settings: input.default_inference_settings,
      document_count: documents.length,
      iteration_ids: iterations.map((it) => it.record.id),
      created_at: now,
      updated_at: now,
    };
    const stored = await ctx.storage.evaluations.insert(record);
    const contents = new Map<string, StoredFile>();
    for (const d of prepared) if (d.content) contents.set(d.file_id, d.content);
    const predictions = new Map(iterations.map((it) => [it.record.id, new Map(it.predictions.map((p) => [p.id, p]))]));
    return await renderEvaluation(ctx, stored.value, { documents, iterations: iterations.map((it) => it.record), contents, predictions });
  } catch (error) {
    for (const iteration of inserted) {
      await ctx.storage.predictions.deleteAll(organizationId, iteration.id).catch(() => undefined);
      await ctx.storage.iterations.delete(organizationId, iteration.id).catch(() => undefined);
    }
    if (documentsInserted) await ctx.storage.documents.deleteAll(organizationId, id).catch(() => undefined);
    await releaseFiles(ctx, organizationId, prepared.map((d) => d.file_id));
    throw error;
  }
}

async function duplicate(ctx: OperationContext, organizationId: string, raw: DuplicateEvaluationInput): Promise<EvaluationOverview> {
  const input = parseInput(duplicateEvaluationInputSchema, raw);
  const { value: source } = await requireEvaluation(ctx, organizationId, input.evaluation_id);
  const documents = await readAllDocuments(ctx, organizationId, source.id);
  const id = newEvaluationId();
  const now = ctx.now();
  const copies = documents.map((d): DocumentRecord => ({ ...d, parent_id: id, revision: newRevision(), updated_at: now }));
  const retained = documents.length > 0 ? await ctx.storage.files.retainMany(organizationId, documents.map((d) => ({ fileId: d.id }))) : [];
  if (retained.some((kept) => !kept)) {
    // Only when the source was deleted meanwhile (its files went with it): as if it had been gone before.
    await releaseFiles(ctx, organizationId, documents.filter((_, i) => retained[i]).map((d) => d.id));
    throw notFound('evaluation', source.id);
  }
  try {
    if (copies.length > 0) await ctx.storage.documents.insertMany(copies);
    const stored = await ctx.storage.evaluations.insert({
      ...source,
      id,
      name: input.name ?? `${source.name} (copy)`.slice(0, 512),
      document_count: copies.length,
      iteration_ids: [],
      created_at: now,
      updated_at: now,
    });
    return await renderEvaluationOverview(ctx, stored.value);
  } catch (error) {
    await ctx.storage.documents.deleteAll(organizationId, id).catch(() => undefined);
    await releaseFiles(ctx, organizationId, documents.map((d) => d.id));
    throw error;
  }
}

async function listEvaluations(ctx: OperationContext, organizationId: string, raw: ListEvaluationsInput = {}): Promise<ListResult<EvaluationSummary>> {
  const input = parseInput(listEvaluationsInputSchema, raw);
  assertExpandLimit(input);
  const page = await readPage(ctx.storage.evaluations, organizationId, input, [
    'project_id',
    'name',
    'schema_id',
    'schema_data_id',
  ]);
  const limit = pLimit(LIST_RENDER_CONCURRENCY);
  return {
    data: await Promise.all(page.items.map((record) => limit(() => renderEvaluationSummary(ctx, record, input.expand === 'documents')))),
    list_metadata: listMetadata(page, input),
  };
}

async function updateEvaluation(ctx: OperationContext, organizationId: string, raw: UpdateEvaluationInput): Promise<Evaluation> {
  const input = parseInput(updateEvaluationInputSchema, raw);
  const ids = input.json_schema
    ? checkJsonSchema(input.json_schema, 'json_schema', ctx.limits.maxJsonSchemaBytes)
    : undefined;
  const updated = await updateRecord(ctx.storage.evaluations, organizationId, input.evaluation_id, (current) => {
    if (ids && ids.schema_data_id !== current.schema_data_id && current.iteration_ids.length > 0) {
      throw schemaStructureConflict(current.schema_data_id, ids.schema_data_id, 'json_schema');
    }
    const next: EvaluationRecord = {
      ...current,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.project_id !== undefined ? { project_id: input.project_id } : {}),
      ...(input.json_schema && ids ? { json_schema: input.json_schema, ...ids } : {}),
      ...(input.default_inference_settings !== undefined
        ? { default_inference_settings: input.default_inference_settings }
        : {}),
      updated_at: ctx.now(),
    };
    return { write: next, result: undefined };
  });
  if (!updated) throw notFound('evaluation', input.evaluation_id);
  return renderEvaluation(ctx, updated.record.value);
}

async function deleteEvaluation(ctx: OperationContext, organizationId: string, raw: EvaluationRefInput): Promise<Deleted> {
  const input = parseInput(evaluationRefInputSchema, raw);
  const deleted = await retryCompareAndSet(input.evaluation_id, async () => {
    const found = await requireEvaluation(ctx, organizationId, input.evaluation_id);
    return (await ctx.storage.evaluations.delete(organizationId, input.evaluation_id, found.version)) ? found.value : undefined;
  });
  // The evaluation is gone; what it held goes after it. A crash here leaks (the orphan sweep), never loses.
  const fileIds = (await readAllDocuments(ctx, organizationId, deleted.id)).map((d) => d.id);
  await ctx.storage.documents.deleteAll(organizationId, deleted.id);
  for (const iterationId of deleted.iteration_ids) {
    await ctx.jobRunner.cancel({ organization_id: organizationId, evaluation_id: input.evaluation_id, iteration_id: iterationId });
    await ctx.storage.predictions.deleteAll(organizationId, iterationId).catch(() => undefined);
    await ctx.storage.events.deleteAll(organizationId, iterationId).catch(() => undefined);
    await ctx.storage.iterations.delete(organizationId, iterationId).catch(() => undefined);
  }
  await releaseFiles(ctx, organizationId, fileIds);
  return { id: input.evaluation_id, deleted: true, success: true };
}
