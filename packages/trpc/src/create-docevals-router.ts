import {
  assertNoForbiddenKey,
  DocevalsError,
  operations,
  unauthorizedError,
  type Docevals,
  type Operation,
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
    if (ctx.organizationId === null) {
      throw ctx.refusal ? new DocevalsError('unauthorized', ctx.refusal) : unauthorizedError(ctx.apiKeySent === true);
    }
    return next({ ctx: { organizationId: ctx.organizationId } });
  })
  .use(async ({ getRawInput, next }) => {
    // Before zod sees it: zod would drop an own `__proto__` key without a word (docs/spec/limits.md).
    assertNoForbiddenKey(await getRawInput());
    return next();
  });

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
  // Each procedure is one operation of the core's table: its input, output and service call. The resolver's
  // types come from the table (the procedure's output type is its output schema's), so the casts lose nothing.
  const query = <I extends z.ZodType, O extends z.ZodType>(op: Operation<I, O>) =>
    procedure
      .input(op.input)
      .output(op.output)
      .query(({ ctx, input }) => op.call(docevals, ctx.organizationId, input as z.output<I>) as Promise<never>);
  const mutation = <I extends z.ZodType, O extends z.ZodType>(op: Operation<I, O>) =>
    procedure
      .input(op.input)
      .output(op.output)
      .mutation(({ ctx, input }) => op.call(docevals, ctx.organizationId, input as z.output<I>) as Promise<never>);
  const op = operations;

  return t.router({
    evals: t.router({
      create: mutation(op['evals.create']),
      get: query(op['evals.get']),
      /** REST's `?view=summary`: the evaluation without its documents (their count, iterations as summaries). */
      getSummary: query(op['evals.getSummary']),
      list: query(op['evals.list']),
      update: mutation(op['evals.update']),
      delete: mutation(op['evals.delete']),
      compare: query(op['evals.compare']),
      leaderboard: query(op['evals.leaderboard']),
      matrix: query(op['evals.matrix']),

      documents: t.router({
        add: mutation(op['evals.documents.add']),
        list: query(op['evals.documents.list']),
        get: query(op['evals.documents.get']),
        update: mutation(op['evals.documents.update']),
        delete: mutation(op['evals.documents.delete']),
        import: mutation(op['evals.documents.import']),
      }),

      iterations: t.router({
        list: query(op['evals.iterations.list']),
        /** REST's `?view=summary` as its own procedure, so that each has one output type. */
        listSummaries: query(op['evals.iterations.listSummaries']),
        /** Answers when the iteration is done (every document failed: `extractor_error` with the iteration id). */
        create: mutation(op['evals.iterations.create']),
        /** REST's `"background": true`: answers at once with the summary; follow it with `events`. */
        createInBackground: mutation(op['evals.iterations.createInBackground']),
        get: query(op['evals.iterations.get']),
        getSummary: query(op['evals.iterations.getSummary']),
        predictions: query(op['evals.iterations.predictions']),
        delete: mutation(op['evals.iterations.delete']),
        process: mutation(op['evals.iterations.process']),
        update: mutation(op['evals.iterations.update']),
        distances: query(op['evals.iterations.distances']),
        fields: query(op['evals.iterations.fields']),
        /**
         * The export's text in chunks (a page of documents each), as an async iterable: read it with
         * `httpBatchStreamLink` so it streams (docs/trpc.md).
         */
        export: procedure.input(op['evals.iterations.export'].input).query(async function* ({ ctx, input }) {
          const file = await op['evals.iterations.export'].call(docevals, ctx.organizationId, input);
          yield* file.chunks;
        }),
        processInBackground: mutation(op['evals.iterations.processInBackground']),
        cancel: mutation(op['evals.iterations.cancel']),
        /**
         * The iteration's events over tRPC's SSE transport (`httpSubscriptionLink`): each is `tracked` with its event
         * id, so the client resumes with `lastEventId` (tRPC's name for it) after a reconnect, without losses or
         * duplicates.
         */
        events: procedure
          .input(
            op['evals.iterations.events'].input
              .omit({ last_event_id: true })
              .extend({ lastEventId: z.string().min(1).max(1024).nullish() }),
          )
          .subscription(async function* ({ ctx, input, signal }) {
            const events = op['evals.iterations.events'].call(docevals, ctx.organizationId, {
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
      create: mutation(op['processors.create']),
      get: query(op['processors.get']),
      list: query(op['processors.list']),
      update: mutation(op['processors.update']),
      delete: mutation(op['processors.delete']),
      submit: mutation(op['processors.submit']),
    }),

    models: t.router({
      list: procedure.output(op['models.list'].output).query(({ ctx }) => op['models.list'].call(docevals, ctx.organizationId, undefined)),
    }),
  });
}

/** The type of the docevals router, for `createTRPCClient<DocevalsRouter>` and `inferRouterInputs/Outputs`. */
export type DocevalsRouter = ReturnType<typeof createDocevalsRouter>;
