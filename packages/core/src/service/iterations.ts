import {
  createIterationInputSchema,
  getIterationInputSchema,
  iterationRefInputSchema,
  listIterationsInputSchema,
  listPredictionsInputSchema,
  processIterationInputSchema,
  type CreateIterationInput,
  type Deleted,
  type GetIterationInput,
  type Iteration,
  type IterationRefInput,
  type IterationSummary,
  type ListIterationsInput,
  type ListPredictionsInput,
  type PredictionPage,
  type ProcessIterationInput,
} from '../schemas/index.js';
import { notFound } from '../errors.js';
import type { ServiceContext } from './context.js';
import { newIterationId } from './ids.js';
import {
  attachIteration,
  discardIteration,
  finishIteration,
  newIterationRecord,
  reconcileWithDocuments,
  resolveIterationSchema,
  restartIteration,
  runDocuments,
  stopIteration,
  tooManyIterations,
} from './iteration-steps.js';
import { listMetadata, unknownCursor } from './lists.js';
import { documentCount, renderIteration, renderIterationSummary, renderPredictionPage } from './render.js';
import { loadIterations, predictionsFor, readAllDocuments, requireEvaluation, requireIteration, requireIterationOf } from './reads.js';
import { resolveSettings } from './settings.js';
import { updateRecord } from './update-record.js';
import { invalidRequest, parseInput } from './validate.js';

export function iterationOperations(ctx: ServiceContext) {
  return {
    async list(organizationId: string, raw: ListIterationsInput): Promise<{ data: Array<Iteration | IterationSummary> }> {
      const input = parseInput(listIterationsInputSchema, raw);
      const evaluation = await requireEvaluation(ctx, organizationId, input.evaluation_id);
      const iterations = (await loadIterations(ctx, evaluation.value)).filter(
        (it) => input.model === undefined || it.inference_settings.model === input.model,
      );
      if (input.view === 'summary') {
        const count = await documentCount(ctx, evaluation.value);
        return { data: await Promise.all(iterations.map((it) => renderIterationSummary(ctx, it, count))) };
      }
      const documents = await readAllDocuments(ctx, organizationId, evaluation.value.id);
      const data: Iteration[] = [];
      for (const iteration of iterations) data.push(await renderIteration(ctx, iteration, documents));
      return { data };
    },

    async create(organizationId: string, raw: CreateIterationInput): Promise<Iteration> {
      const input = parseInput(createIterationInputSchema, raw);
      const { value: evaluation } = await requireEvaluation(ctx, organizationId, input.evaluation_id);
      const settings = resolveSettings(input.inference_settings, evaluation.default_inference_settings, 'inference_settings');
      ctx.runner.assertServed(settings.model, 'inference_settings.model');
      const schema = resolveIterationSchema(ctx, evaluation, input.json_schema, 'json_schema');
      if (evaluation.iteration_ids.length >= ctx.limits.maxIterationsPerEvaluation) throw tooManyIterations(ctx);

      const snapshot = await readAllDocuments(ctx, organizationId, evaluation.id);
      const record = newIterationRecord({
        id: newIterationId(),
        organizationId,
        evaluationId: evaluation.id,
        settings,
        schema,
        status: 'running',
        now: ctx.now(),
      });
      // The record and its predictions are invisible until the evaluation lists the iteration.
      await ctx.storage.iterations.insert(record);
      let outcome;
      try {
        outcome = await runDocuments(ctx, record, snapshot, 'insert');
        await attachIteration(ctx, record);
      } catch (error) {
        await discardIteration(ctx, record);
        throw error;
      }
      let documents;
      let finished;
      try {
        documents = await reconcileWithDocuments(ctx, record, snapshot);
        finished = await finishIteration(ctx, record, outcome);
      } catch (error) {
        await stopIteration(ctx, record, error);
        throw error;
      }
      return renderIteration(ctx, finished, documents);
    },

    async get(organizationId: string, raw: GetIterationInput): Promise<Iteration | IterationSummary> {
      const input = parseInput(getIterationInputSchema, raw);
      const { evaluation, iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
      if (input.view === 'summary') return renderIterationSummary(ctx, iteration, documentCount(ctx, evaluation));
      return renderIteration(ctx, iteration, await readAllDocuments(ctx, organizationId, evaluation.id));
    },

    async predictions(organizationId: string, raw: ListPredictionsInput): Promise<PredictionPage> {
      const input = parseInput(listPredictionsInputSchema, raw);
      const { iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
      const page = await ctx.storage.documents.list(organizationId, input.evaluation_id, { limit: input.limit, after: input.after });
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
      await ctx.storage.predictions.deleteAll(organizationId, input.iteration_id);
      await ctx.storage.iterations.delete(organizationId, input.iteration_id);
      return { id: input.iteration_id, deleted: true };
    },

    async process(organizationId: string, raw: ProcessIterationInput): Promise<Iteration> {
      const input = parseInput(processIterationInputSchema, raw);
      const found = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
      ctx.runner.assertServed(found.iteration.inference_settings.model, 'inference_settings.model');
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
      if (input.only_missing) {
        const predictions = await predictionsFor(ctx, organizationId, found.iteration.id, documents);
        documents = documents.filter((_, i) => {
          const p = predictions[i];
          return !p || p.status === 'failed' || p.metadata === null;
        });
      }
      const iteration = await restartIteration(ctx, found.iteration);
      let outcome;
      try {
        outcome = await runDocuments(ctx, iteration, documents, 'replace');
      } catch (error) {
        await stopIteration(ctx, iteration, error);
        throw error;
      }
      const finished = await finishIteration(ctx, iteration, outcome);
      return renderIteration(ctx, finished, await readAllDocuments(ctx, organizationId, found.evaluation.id));
    },
  };
}
