import {
  addDocumentInputSchema,
  compareInputSchema,
  evaluationComparisonSchema,
  exportInputSchema,
  importAnnotationsInputSchema,
  importAnnotationsResultSchema,
  iterationFieldsInputSchema,
  iterationFieldsSchema,
  leaderboardInputSchema,
  leaderboardSchema,
  assertNoForbiddenKey,
  createEvaluationInputSchema,
  createIterationInputSchema,
  createProcessorInputSchema,
  deletedSchema,
  documentRefInputSchema,
  documentSchema,
  documentSummarySchema,
  evaluationRefInputSchema,
  evaluationSchema,
  evaluationSummarySchema,
  iterationRefInputSchema,
  iterationSchema,
  iterationSummarySchema,
  listDocumentsInputSchema,
  listEvaluationsInputSchema,
  listIterationsInputSchema,
  listPredictionsInputSchema,
  listResultSchema,
  modelListSchema,
  listProcessorsInputSchema,
  predictionPageSchema,
  processIterationInputSchema,
  updateIterationInputSchema,
  documentDistancesInputSchema,
  documentDistancesSchema,
  processorRefInputSchema,
  processorSchema,
  submitProcessorInputSchema,
  submitResultSchema,
  updateDocumentInputSchema,
  updateEvaluationInputSchema,
  updateProcessorInputSchema,
  unauthorizedError,
  type Docevals,
} from '@docevals/core';
import { initTRPC, tracked } from '@trpc/server';
import { z } from 'zod';
import type { DocevalsContext } from './create-docevals-context.js';
import { formatDocevalsError } from './error-formatter.js';
import { toTRPCError } from './error-table.js';

const t = initTRPC.context<DocevalsContext>().create({ errorFormatter: formatDocevalsError });

/**
 * Every docevals procedure: failures translated by the error table (input validation included, since this runs
 * around `.input()`), and the caller's organization required before the input is even parsed, as REST answers 401
 * before 422.
 */
const organizationProcedure = t.procedure
  .use(async ({ next }) => {
    const result = await next();
    if (!result.ok) throw toTRPCError(result.error);
    return result;
  })
  .use(({ ctx, next }) => {
    // Worded as the REST API words it (the core's unauthorizedError): one message, whichever transport.
    if (ctx.organizationId === null) throw unauthorizedError(ctx.apiKeySent === true);
    return next({ ctx: { organizationId: ctx.organizationId } });
  })
  .use(async ({ getRawInput, next }) => {
    // Before zod sees it: zod would drop an own `__proto__` key without a word (docs/spec/limits.md).
    assertNoForbiddenKey(await getRawInput());
    return next();
  });

/** A page of a list operation, from the core's item schema and list metadata. */
const pageOf = listResultSchema;

export interface CreateDocevalsRouterOptions {
  /** The service the procedures call, from `createDocevals({ storage, extractors })` of `@docevals/core`. */
  docevals: Docevals;
}

/**
 * The docevals API as a tRPC v11 router: one procedure per REST operation, taking the core's input schemas (the REST
 * body with the path parameters as snake_case fields) and returning the core's output shapes. Queries for get and
 * list, mutations for the rest. Serve it with tRPC's own adapters and {@link createDocevalsContext}.
 *
 * @example
 * import { createHTTPServer } from '@trpc/server/adapters/standalone';
 * const router = createDocevalsRouter({ docevals: createDocevals({ storage: memoryStorage() }) });
 * const createContext = createDocevalsContext({ authenticate: apiKeyAuthenticator({ keys: { k_1: 'org_1' } }) });
 * createHTTPServer({ router, createContext, basePath: '/trpc/' }).listen(3000);
 */
export function createDocevalsRouter(options: CreateDocevalsRouterOptions) {
  const { docevals } = options;
  const procedure = organizationProcedure;

  return t.router({
    evals: t.router({
      create: procedure
        .input(createEvaluationInputSchema)
        .output(evaluationSchema)
        .mutation(({ ctx, input }) => docevals.evals.create(ctx.organizationId, input)),
      get: procedure
        .input(evaluationRefInputSchema)
        .output(evaluationSchema)
        .query(({ ctx, input }) => docevals.evals.get(ctx.organizationId, input)),
      list: procedure
        .input(listEvaluationsInputSchema.optional())
        .output(pageOf(evaluationSummarySchema))
        .query(({ ctx, input }) => docevals.evals.list(ctx.organizationId, input)),
      update: procedure
        .input(updateEvaluationInputSchema)
        .output(evaluationSchema)
        .mutation(({ ctx, input }) => docevals.evals.update(ctx.organizationId, input)),
      delete: procedure
        .input(evaluationRefInputSchema)
        .output(deletedSchema)
        .mutation(({ ctx, input }) => docevals.evals.delete(ctx.organizationId, input)),
      compare: procedure
        .input(compareInputSchema)
        .output(evaluationComparisonSchema)
        .query(({ ctx, input }) => docevals.evals.compare(ctx.organizationId, input)),
      leaderboard: procedure
        .input(leaderboardInputSchema)
        .output(leaderboardSchema)
        .query(({ ctx, input }) => docevals.evals.leaderboard(ctx.organizationId, input)),

      documents: t.router({
        add: procedure
          .input(addDocumentInputSchema)
          .output(documentSchema)
          .mutation(({ ctx, input }) => docevals.evals.documents.add(ctx.organizationId, input)),
        list: procedure
          .input(listDocumentsInputSchema)
          .output(pageOf(z.union([documentSummarySchema, documentSchema])))
          .query(({ ctx, input }) => docevals.evals.documents.list(ctx.organizationId, input)),
        get: procedure
          .input(documentRefInputSchema)
          .output(documentSchema)
          .query(({ ctx, input }) => docevals.evals.documents.get(ctx.organizationId, input)),
        update: procedure
          .input(updateDocumentInputSchema)
          .output(documentSchema)
          .mutation(({ ctx, input }) => docevals.evals.documents.update(ctx.organizationId, input)),
        delete: procedure
          .input(documentRefInputSchema)
          .output(deletedSchema)
          .mutation(({ ctx, input }) => docevals.evals.documents.delete(ctx.organizationId, input)),
        import: procedure
          .input(importAnnotationsInputSchema)
          .output(importAnnotationsResultSchema)
          .mutation(({ ctx, input }) => docevals.evals.documents.import(ctx.organizationId, input)),
      }),

      iterations: t.router({
        list: procedure
          .input(listIterationsInputSchema.omit({ view: true }))
          .output(z.object({ data: z.array(iterationSchema) }))
          .query(({ ctx, input }) => docevals.evals.iterations.list(ctx.organizationId, { ...input, view: 'full' })),
        /** REST's `?view=summary` as its own procedure, so that each has one output type. */
        listSummaries: procedure
          .input(listIterationsInputSchema.omit({ view: true }))
          .output(z.object({ data: z.array(iterationSummarySchema) }))
          .query(({ ctx, input }) => docevals.evals.iterations.list(ctx.organizationId, { ...input, view: 'summary' })),
        /** Answers when the iteration is done (every document failed: `extractor_error` with the iteration id). */
        create: procedure
          .input(createIterationInputSchema.omit({ background: true }))
          .output(iterationSchema)
          .mutation(({ ctx, input }) => docevals.evals.iterations.create(ctx.organizationId, { ...input, background: false })),
        /** REST's `"background": true`: answers at once with the summary; follow it with `events`. */
        createInBackground: procedure
          .input(createIterationInputSchema.omit({ background: true }))
          .output(iterationSummarySchema)
          .mutation(({ ctx, input }) => docevals.evals.iterations.create(ctx.organizationId, { ...input, background: true })),
        get: procedure
          .input(iterationRefInputSchema)
          .output(iterationSchema)
          .query(({ ctx, input }) => docevals.evals.iterations.get(ctx.organizationId, { ...input, view: 'full' })),
        getSummary: procedure
          .input(iterationRefInputSchema)
          .output(iterationSummarySchema)
          .query(({ ctx, input }) => docevals.evals.iterations.get(ctx.organizationId, { ...input, view: 'summary' })),
        predictions: procedure
          .input(listPredictionsInputSchema)
          .output(predictionPageSchema)
          .query(({ ctx, input }) => docevals.evals.iterations.predictions(ctx.organizationId, input)),
        delete: procedure
          .input(iterationRefInputSchema)
          .output(deletedSchema)
          .mutation(({ ctx, input }) => docevals.evals.iterations.delete(ctx.organizationId, input)),
        process: procedure
          .input(processIterationInputSchema.omit({ background: true }))
          .output(iterationSchema)
          .mutation(({ ctx, input }) => docevals.evals.iterations.process(ctx.organizationId, { ...input, background: false })),
        update: procedure
          .input(updateIterationInputSchema)
          .output(iterationSchema)
          .mutation(({ ctx, input }) => docevals.evals.iterations.update(ctx.organizationId, input)),
        distances: procedure
          .input(documentDistancesInputSchema)
          .output(documentDistancesSchema)
          .query(({ ctx, input }) => docevals.evals.iterations.distances(ctx.organizationId, input)),
        fields: procedure
          .input(iterationFieldsInputSchema)
          .output(iterationFieldsSchema)
          .query(({ ctx, input }) => docevals.evals.iterations.fields(ctx.organizationId, input)),
        /**
         * The export's text in chunks (a page of documents each), as an async iterable: read it with
         * `httpBatchStreamLink` so it streams (docs/trpc.md).
         */
        export: procedure.input(exportInputSchema).query(async function* ({ ctx, input }) {
          const file = await docevals.evals.iterations.export(ctx.organizationId, input);
          yield* file.chunks;
        }),
        processInBackground: procedure
          .input(processIterationInputSchema.omit({ background: true }))
          .output(iterationSummarySchema)
          .mutation(({ ctx, input }) => docevals.evals.iterations.process(ctx.organizationId, { ...input, background: true })),
        cancel: procedure
          .input(iterationRefInputSchema)
          .output(iterationSummarySchema)
          .mutation(({ ctx, input }) => docevals.evals.iterations.cancel(ctx.organizationId, input)),
        /**
         * The iteration's events over tRPC's SSE transport (`httpSubscriptionLink`): each is `tracked` with its event
         * id, so the client resumes with `lastEventId` after a reconnect, without losses or duplicates.
         */
        events: procedure
          .input(iterationRefInputSchema.extend({ lastEventId: z.string().min(1).max(1024).nullish() }))
          .subscription(async function* ({ ctx, input, signal }) {
            const events = docevals.evals.iterations.events(ctx.organizationId, {
              evaluation_id: input.evaluation_id,
              iteration_id: input.iteration_id,
              ...(input.lastEventId ? { last_event_id: input.lastEventId } : {}),
            });
            for await (const event of events) {
              if (signal?.aborted) return;
              yield tracked(event.id, event);
            }
          }),
      }),
    }),

    processors: t.router({
      create: procedure
        .input(createProcessorInputSchema)
        .output(processorSchema)
        .mutation(({ ctx, input }) => docevals.processors.create(ctx.organizationId, input)),
      get: procedure
        .input(processorRefInputSchema)
        .output(processorSchema)
        .query(({ ctx, input }) => docevals.processors.get(ctx.organizationId, input)),
      list: procedure
        .input(listProcessorsInputSchema.optional())
        .output(pageOf(processorSchema))
        .query(({ ctx, input }) => docevals.processors.list(ctx.organizationId, input)),
      update: procedure
        .input(updateProcessorInputSchema)
        .output(processorSchema)
        .mutation(({ ctx, input }) => docevals.processors.update(ctx.organizationId, input)),
      delete: procedure
        .input(processorRefInputSchema)
        .output(deletedSchema)
        .mutation(({ ctx, input }) => docevals.processors.delete(ctx.organizationId, input)),
      submit: procedure
        .input(submitProcessorInputSchema)
        .output(submitResultSchema)
        .mutation(({ ctx, input }) => docevals.processors.submit(ctx.organizationId, input)),
    }),

    models: t.router({
      list: procedure.output(modelListSchema).query(() => docevals.listModels()),
    }),
  });
}

/** The type of the docevals router, for `createTRPCClient<DocevalsRouter>` and `inferRouterInputs/Outputs`. */
export type DocevalsRouter = ReturnType<typeof createDocevalsRouter>;
