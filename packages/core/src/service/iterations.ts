import { DocevalsError, notFound } from '../errors.js';
import type { DocumentPrediction } from '../extraction/index.js';
import type { JsonObject } from '../json/assert-json.js';
import {
  createIterationInputSchema,
  documentDistancesInputSchema,
  iterationIdInputSchema,
  iterationRefInputSchema,
  listIterationsInputSchema,
  processIterationInputSchema,
  updateIterationInputSchema,
  type CreateIterationInput,
  type Deleted,
  type DocumentDistances,
  type DocumentDistancesInput,
  type InferenceSettings,
  type Iteration,
  type IterationIdInput,
  type IterationRefInput,
  type ListIterationsInput,
  type ProcessIterationInput,
  type UpdateIterationInput,
} from '../schemas/index.js';
import type { EvaluationRecord, IterationRecord, StoredDocument, StoredPrediction } from '../storage.js';
import type { ServiceContext } from './context.js';
import { loadExtractionDocument } from './document-files.js';
import { refreshDocumentMetrics } from './documents.js';
import { requireEvaluation } from './evaluations.js';
import { newIterationId } from './ids.js';
import { checkJsonSchema, schemaStructureConflict } from './json-schemas.js';
import { computeDocumentMetrics, loadIterations, renderIteration } from './render.js';
import { resolveSettings } from './settings.js';
import { updateRecord } from './update-record.js';
import { invalidRequest, parseInput } from './validate.js';

/**
 * Runs the extractor over documents, in chunks so that only a bounded number of files is held in memory at once;
 * within a chunk the runner keeps its concurrency limit full. Each prediction carries metrics computed against the
 * annotation revision that was read with it.
 */
async function extractDocuments(
  ctx: ServiceContext,
  organizationId: string,
  documents: readonly StoredDocument[],
  jsonSchema: JsonObject,
  settings: InferenceSettings,
): Promise<Record<string, StoredPrediction>> {
  const out: Record<string, StoredPrediction> = {};
  const chunkSize = Math.max(64, ctx.concurrency * 8);
  for (let start = 0; start < documents.length; start += chunkSize) {
    const chunk = documents.slice(start, start + chunkSize);
    const loaded = await Promise.all(chunk.map((d) => loadExtractionDocument(ctx, organizationId, d)));
    const predictions: DocumentPrediction[] = await ctx.runner.extractAll(loaded, jsonSchema, settings);
    chunk.forEach((document, i) => {
      const { prediction, metadata } = predictions[i]!;
      out[document.id] = {
        prediction,
        metadata,
        metrics: computeDocumentMetrics(document.annotation, prediction, document.revision),
      };
    });
  }
  return out;
}

/** After writing predictions computed against a snapshot, bring their metrics up to any annotation edited since. */
async function refreshStale(
  ctx: ServiceContext,
  snapshot: readonly StoredDocument[],
  organizationId: string,
  evaluationId: string,
): Promise<EvaluationRecord | null> {
  const latest = await ctx.storage.evaluations.get(organizationId, evaluationId);
  if (!latest) return null;
  const before = new Map(snapshot.map((d) => [d.id, d.revision]));
  const changed = latest.value.documents.filter((d) => before.has(d.id) && before.get(d.id) !== d.revision);
  for (const document of changed) await refreshDocumentMetrics(ctx, latest.value, document);
  return latest.value;
}

function requireIterationOf(evaluation: EvaluationRecord, iterationId: string): void {
  if (!evaluation.iteration_ids.includes(iterationId)) throw notFound('iteration', iterationId);
}

export function iterationOperations(ctx: ServiceContext) {
  async function load(organizationId: string, evaluationId: string, iterationId: string) {
    const evaluation = await requireEvaluation(ctx, organizationId, evaluationId);
    requireIterationOf(evaluation.value, iterationId);
    const iteration = await ctx.storage.iterations.get(organizationId, iterationId);
    if (!iteration || iteration.value.evaluation_id !== evaluationId) throw notFound('iteration', iterationId);
    return { evaluation: evaluation.value, iteration: iteration.value };
  }

  return {
    async list(organizationId: string, raw: ListIterationsInput): Promise<{ data: Iteration[] }> {
      const input = parseInput(listIterationsInputSchema, raw);
      const evaluation = await requireEvaluation(ctx, organizationId, input.evaluation_id);
      const iterations = await loadIterations(ctx, evaluation.value);
      return {
        data: iterations
          .filter((it) => input.model === undefined || it.inference_settings.model === input.model)
          .map((it) => renderIteration(evaluation.value, it)),
      };
    },

    async create(organizationId: string, raw: CreateIterationInput): Promise<Iteration> {
      const input = parseInput(createIterationInputSchema, raw);
      const found = await requireEvaluation(ctx, organizationId, input.evaluation_id);
      const evaluation = found.value;
      const settings = resolveSettings(input.inference_settings, evaluation.default_inference_settings, 'inference_settings');
      ctx.runner.assertServed(settings.model, 'inference_settings.model');
      let jsonSchema = evaluation.json_schema;
      let ids = { schema_id: evaluation.schema_id, schema_data_id: evaluation.schema_data_id };
      if (input.json_schema) {
        ids = checkJsonSchema(input.json_schema, 'json_schema', ctx.limits.maxJsonSchemaBytes);
        jsonSchema = input.json_schema;
        if (ids.schema_data_id !== evaluation.schema_data_id) {
          throw schemaStructureConflict(evaluation.schema_data_id, ids.schema_data_id, 'json_schema');
        }
      }
      if (evaluation.iteration_ids.length >= ctx.limits.maxIterationsPerEvaluation) {
        throw tooManyIterations(ctx);
      }

      const snapshot = evaluation.documents;
      const predictions = await extractDocuments(ctx, organizationId, snapshot, jsonSchema, settings);
      const now = ctx.now();
      const record: IterationRecord = {
        id: newIterationId(),
        organization_id: organizationId,
        evaluation_id: evaluation.id,
        inference_settings: settings,
        model: settings.model,
        json_schema: jsonSchema,
        ...ids,
        predictions,
        created_at: now,
        updated_at: now,
      };
      // The record is invisible until the evaluation lists it; appending is one compare-and-set that re-checks the
      // rules against the evaluation as it is now (its schema may have changed while the extractor ran).
      await ctx.storage.iterations.insert(record);
      try {
        const appended = await updateRecord(ctx.storage.evaluations, organizationId, evaluation.id, (current) => {
          if (current.schema_data_id !== record.schema_data_id) {
            throw schemaStructureConflict(current.schema_data_id, record.schema_data_id, 'json_schema');
          }
          if (current.iteration_ids.length >= ctx.limits.maxIterationsPerEvaluation) throw tooManyIterations(ctx);
          return {
            write: { ...current, iteration_ids: [...current.iteration_ids, record.id], updated_at: ctx.now() },
            result: undefined,
          };
        });
        if (!appended) throw notFound('evaluation', evaluation.id);
      } catch (error) {
        await ctx.storage.iterations.delete(organizationId, record.id).catch(() => undefined);
        throw error;
      }
      // Render against the evaluation as it is now: a figure cached for an older annotation is recomputed there,
      // so the record in hand answers as the stored one would.
      const latest = (await refreshStale(ctx, snapshot, organizationId, evaluation.id)) ?? evaluation;
      return renderIteration(latest, record);
    },

    async get(organizationId: string, raw: IterationRefInput): Promise<Iteration> {
      const input = parseInput(iterationRefInputSchema, raw);
      const { evaluation, iteration } = await load(organizationId, input.evaluation_id, input.iteration_id);
      return renderIteration(evaluation, iteration);
    },

    async delete(organizationId: string, raw: IterationRefInput): Promise<Deleted> {
      const input = parseInput(iterationRefInputSchema, raw);
      const updated = await updateRecord(ctx.storage.evaluations, organizationId, input.evaluation_id, (current) => {
        requireIterationOf(current, input.iteration_id);
        return {
          write: {
            ...current,
            iteration_ids: current.iteration_ids.filter((id) => id !== input.iteration_id),
            updated_at: ctx.now(),
          },
          result: undefined,
        };
      });
      if (!updated) throw notFound('evaluation', input.evaluation_id);
      await ctx.storage.iterations.delete(organizationId, input.iteration_id);
      return { id: input.iteration_id, deleted: true, success: true };
    },

    async process(organizationId: string, raw: ProcessIterationInput): Promise<Iteration> {
      const input = parseInput(processIterationInputSchema, raw);
      const { evaluation, iteration } = await load(organizationId, input.evaluation_id, input.iteration_id);
      ctx.runner.assertServed(iteration.inference_settings.model, 'inference_settings.model');
      let documents = evaluation.documents;
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
      if (input.only_missing) {
        documents = documents.filter((d) => {
          const entry = iteration.predictions[d.id];
          return !entry || entry.metadata === null || typeof entry.metadata?.error === 'string';
        });
      }
      const predictions = await extractDocuments(
        ctx,
        organizationId,
        documents,
        iteration.json_schema,
        iteration.inference_settings,
      );
      // Merge only this run's documents into the iteration as it is now: a concurrent re-run of other documents
      // keeps its predictions.
      const updated = await updateRecord(ctx.storage.iterations, organizationId, iteration.id, (current) => ({
        write: { ...current, predictions: { ...current.predictions, ...predictions }, updated_at: ctx.now() },
        result: undefined,
      }));
      if (!updated) throw notFound('iteration', iteration.id);
      const latest = (await refreshStale(ctx, documents, organizationId, evaluation.id)) ?? evaluation;
      return renderIteration(latest, updated.record.value);
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
      const { evaluation, iteration } = await load(organizationId, input.evaluation_id, input.iteration_id);
      const settings = resolveSettings(input.inference_settings, iteration.inference_settings, 'inference_settings');
      ctx.runner.assertServed(settings.model, 'inference_settings.model');
      let jsonSchema = iteration.json_schema;
      let ids = { schema_id: iteration.schema_id, schema_data_id: iteration.schema_data_id };
      if (input.json_schema) {
        ids = checkJsonSchema(input.json_schema, 'json_schema', ctx.limits.maxJsonSchemaBytes);
        jsonSchema = input.json_schema;
        if (ids.schema_data_id !== evaluation.schema_data_id) {
          throw schemaStructureConflict(evaluation.schema_data_id, ids.schema_data_id, 'json_schema');
        }
      }
      const same = (a: InferenceSettings, b: InferenceSettings) =>
        (Object.keys({ ...a, ...b }) as Array<keyof InferenceSettings>).every((key) => a[key] === b[key]);
      if (ids.schema_id === iteration.schema_id && same(settings, iteration.inference_settings)) {
        return renderIteration(evaluation, iteration);
      }
      const snapshot = evaluation.documents;
      const predictions = await extractDocuments(ctx, organizationId, snapshot, jsonSchema, settings);
      const updated = await updateRecord(ctx.storage.iterations, organizationId, iteration.id, (current) => ({
        write: {
          ...current,
          inference_settings: settings,
          model: settings.model,
          json_schema: jsonSchema,
          ...ids,
          predictions,
          updated_at: ctx.now(),
        },
        result: undefined,
      }));
      if (!updated) throw notFound('iteration', iteration.id);
      const latest = (await refreshStale(ctx, snapshot, organizationId, evaluation.id)) ?? evaluation;
      return renderIteration(latest, updated.record.value);
    },

    /** One document's distances in an iteration: 1 − similarity for every field of `similarities`, and overall. */
    async distances(organizationId: string, raw: DocumentDistancesInput): Promise<DocumentDistances> {
      const input = parseInput(documentDistancesInputSchema, raw);
      const { evaluation, iteration } = await load(organizationId, input.evaluation_id, input.iteration_id);
      if (!evaluation.documents.some((d) => d.id === input.document_id)) throw notFound('document', input.document_id);
      const metrics = renderIteration(evaluation, iteration).metric_results;
      const metric = metrics.item_metrics.find((m) => m.id === input.document_id);
      if (!metric || !iteration.predictions[input.document_id]) {
        throw new DocevalsError(
          'not_found',
          `The iteration "${iteration.id}" has no prediction for the document "${input.document_id}" yet: re-run it ` +
            'for that document (POST .../process with only_missing: true).',
        );
      }
      return { distances: distanceTree(metric.similarities), mean_distance: 1 - metric.similarity, metric_type: metrics.metric_type };
    },
  };
}

/** 1 − similarity at every number of a similarity tree (objects and arrays kept, anything else as it is). */
function distanceTree(similarities: Record<string, unknown>): Record<string, unknown> {
  const flip = (value: unknown): unknown => {
    if (typeof value === 'number') return 1 - value;
    if (Array.isArray(value)) return value.map(flip);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, flip(item)]));
    }
    return value;
  };
  return flip(similarities) as Record<string, unknown>;
}

function tooManyIterations(ctx: ServiceContext) {
  return new DocevalsError(
    'validation_error',
    `The evaluation already has ${ctx.limits.maxIterationsPerEvaluation} iterations, the limit; delete some first.`,
    { issues: [{ path: '', message: 'iteration limit reached' }] },
  );
}
