import { DocevalsError, notFound, type ErrorIssue } from '../errors.js';
import type { JsonObject } from '../json/assert-json.js';
import {
  createEvaluationInputSchema,
  evaluationRefInputSchema,
  listEvaluationsInputSchema,
  updateEvaluationInputSchema,
  type CreateEvaluationInput,
  type Deleted,
  type Evaluation,
  type EvaluationRefInput,
  type ListEvaluationsInput,
  type ListResult,
  type UpdateEvaluationInput,
} from '../schemas/index.js';
import type { EvaluationRecord, IterationRecord, StoredDocument, StoredPrediction } from '../storage.js';
import type { ServiceContext } from './context.js';
import { prepareDocuments, releaseFiles, retainFiles, toStoredDocument } from './document-files.js';
import { newEvaluationId, newIterationId, newRevision } from './ids.js';
import { assertAnnotations } from '../json-schema/annotation.js';
import { checkJsonSchema, schemaStructureConflict, type SchemaIds } from './json-schemas.js';
import { listMetadata, readPage } from './lists.js';
import { computeDocumentMetrics, renderEvaluation } from './render.js';
import { resolveSettings } from './settings.js';
import { updateRecord } from './update-record.js';
import { invalidRequest, parseInput } from './validate.js';

/** Reads an evaluation of the organization or throws `not_found`. */
export async function requireEvaluation(ctx: ServiceContext, organizationId: string, id: string) {
  const found = await ctx.storage.evaluations.get(organizationId, id);
  if (!found) throw notFound('evaluation', id);
  return found;
}

type ParsedCreate = ReturnType<typeof createEvaluationInputSchema.parse>;

/** Builds the records of the iterations imported with a new evaluation (docs/spec/service.md, Evaluations). */
function importIterations(
  ctx: ServiceContext,
  organizationId: string,
  evaluationId: string,
  input: ParsedCreate,
  schema: { json_schema: JsonObject } & SchemaIds,
  documents: StoredDocument[],
): IterationRecord[] {
  const now = ctx.now();
  const seenIds = new Set<string>();
  return input.iterations.map((iteration, i) => {
    const path = `iterations.${i}`;
    const settings = resolveSettings(iteration.inference_settings, input.default_inference_settings, `${path}.inference_settings`);
    let ids: SchemaIds = schema;
    let jsonSchema = schema.json_schema;
    if (iteration.json_schema) {
      ids = checkJsonSchema(iteration.json_schema, `${path}.json_schema`, ctx.limits.maxJsonSchemaBytes);
      jsonSchema = iteration.json_schema;
      if (ids.schema_data_id !== schema.schema_data_id) {
        throw schemaStructureConflict(schema.schema_data_id, ids.schema_data_id, `iterations.${i}.json_schema`);
      }
    }
    const id = iteration.id ?? newIterationId();
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) {
      throw invalidRequest([{ path: `${path}.id`, message: 'an id is 1 to 128 letters, digits, "_" or "-"' }]);
    }
    if (seenIds.has(id)) throw invalidRequest([{ path: `${path}.id`, message: `iteration id ${id} appears twice` }]);
    seenIds.add(id);
    return {
      id,
      organization_id: organizationId,
      evaluation_id: evaluationId,
      inference_settings: settings,
      model: settings.model,
      json_schema: jsonSchema,
      schema_id: ids.schema_id,
      schema_data_id: ids.schema_data_id,
      predictions: matchPredictions(iteration.predictions, documents, path),
      created_at: now,
      updated_at: now,
    };
  });
}

/** Matches imported predictions to documents: by `document_id` when every one has it, else by position. */
function matchPredictions(
  predictions: ParsedCreate['iterations'][number]['predictions'],
  documents: StoredDocument[],
  path: string,
): Record<string, StoredPrediction> {
  const out: Record<string, StoredPrediction> = {};
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
    if (out[document.id]) {
      issues.push({ path: `${path}.predictions.${j}.document_id`, message: `a second prediction for document ${document.id}` });
      return;
    }
    out[document.id] = {
      prediction: p.prediction,
      metadata: p.metadata ?? null,
      metrics: computeDocumentMetrics(document.annotation, p.prediction, document.revision),
    };
  });
  if (issues.length > 0) throw invalidRequest(issues);
  return out;
}

export function evaluationOperations(ctx: ServiceContext) {
  return {
    async create(organizationId: string, raw: CreateEvaluationInput): Promise<Evaluation> {
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
      const documents = prepared.map((d) => toStoredDocument(d, newRevision()));
      const id = input.id ?? newEvaluationId();
      const iterations = importIterations(ctx, organizationId, id, input, { json_schema: input.json_schema, ...ids }, documents);
      const now = ctx.now();
      const record: EvaluationRecord = {
        id,
        organization_id: organizationId,
        name: input.name,
        project_id: input.project_id,
        json_schema: input.json_schema,
        ...ids,
        default_inference_settings: input.default_inference_settings,
        documents,
        iteration_ids: iterations.map((it) => it.id),
        created_at: now,
        updated_at: now,
      };
      // An id that is taken fails before anything is stored.
      if (await ctx.storage.evaluations.get(organizationId, id)) {
        throw new DocevalsError('conflict', `An evaluation with id "${id}" already exists; choose another id or omit it.`);
      }
      await retainFiles(ctx, organizationId, prepared);
      const inserted: string[] = [];
      try {
        // Iterations first: they are invisible until the evaluation that lists them exists.
        for (const iteration of iterations) {
          await ctx.storage.iterations.insert(iteration);
          inserted.push(iteration.id);
        }
        const stored = await ctx.storage.evaluations.insert(record);
        return await renderEvaluation(ctx, stored.value);
      } catch (error) {
        await Promise.allSettled(inserted.map((itId) => ctx.storage.iterations.delete(organizationId, itId)));
        await releaseFiles(ctx, organizationId, prepared.map((d) => d.file_id));
        throw error;
      }
    },

    async get(organizationId: string, raw: EvaluationRefInput): Promise<Evaluation> {
      const input = parseInput(evaluationRefInputSchema, raw);
      const found = await requireEvaluation(ctx, organizationId, input.evaluation_id);
      return renderEvaluation(ctx, found.value);
    },

    async list(organizationId: string, raw: ListEvaluationsInput = {}): Promise<ListResult<Evaluation>> {
      const input = parseInput(listEvaluationsInputSchema, raw);
      const page = await readPage(ctx.storage.evaluations, organizationId, input, [
        'project_id',
        'name',
        'schema_id',
        'schema_data_id',
      ]);
      return {
        data: await Promise.all(page.items.map((record) => renderEvaluation(ctx, record))),
        list_metadata: listMetadata(page, input),
      };
    },

    async update(organizationId: string, raw: UpdateEvaluationInput): Promise<Evaluation> {
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
    },

    async delete(organizationId: string, raw: EvaluationRefInput): Promise<Deleted> {
      const input = parseInput(evaluationRefInputSchema, raw);
      // Delete exactly the version read, so that the references released below are the ones the deleted record
      // held: a document removed meanwhile has released its own, and must not be released twice (that could drop
      // a file another evaluation still uses).
      let found = await requireEvaluation(ctx, organizationId, input.evaluation_id);
      while (!(await ctx.storage.evaluations.delete(organizationId, input.evaluation_id, found.version))) {
        found = await requireEvaluation(ctx, organizationId, input.evaluation_id);
      }
      // The evaluation is gone; its iterations and file references go after it. A crash here leaks, never loses.
      await Promise.allSettled(
        found.value.iteration_ids.map((itId) => ctx.storage.iterations.delete(organizationId, itId)),
      );
      await releaseFiles(ctx, organizationId, found.value.documents.map((d) => d.id));
      return { id: input.evaluation_id, deleted: true, success: true };
    },
  };
}
