import { DocevalsError, unauthorizedError, type Docevals } from '@docevals/core';
import { assertNoForbiddenKey, eventStreamSlots, operations, type Operation } from '@docevals/core/internal';
import { initTRPC, tracked } from '@trpc/server';
import { z } from 'zod';
import type { DocevalsContext } from './create-docevals-context.js';
import { formatDocevalsError } from './error-formatter.js';
import { toTRPCError } from './error-table.js';

const t = initTRPC.context<DocevalsContext>().create({ errorFormatter: formatDocevalsError });

function batchAnswerTooLarge(limit: number): DocevalsError {
  return new DocevalsError(
    'payload_too_large',
    `The answers of this batch pass ${limit} bytes, this server's limit for one batch; send the large calls as separate requests.`,
  );
}

/** An answer built whole (not a stream of an export or a subscription). */
const isPlainAnswer = (data: unknown) => !(data && typeof data === 'object' && Symbol.asyncIterator in data);

/** The JSON length of an answer (UTF-16 code units: bytes for the ASCII JSON mostly is). */
const jsonLength = (data: unknown) => (data === undefined ? 0 : (JSON.stringify(data)?.length ?? 0));

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
    return next({ ctx: { organizationId: ctx.organizationId, answerBudget: ctx.answerBudget } });
  })
  .use(async ({ ctx, next }) => {
    // A batch's answers share one byte budget: an answer that passes it is dropped as soon as it is built (413 in
    // its place), so the batch's answer sent stays within it. tRPC starts a batch's calls together, so each answer is
    // still built: what bounds memory there is the service's own limit on whole-evaluation reads (two at a time per
    // organization), not this budget.
    const budget = ctx.answerBudget;
    if (!budget) return next();
    const result = await next();
    if (!result.ok || !isPlainAnswer(result.data)) return result;
    budget.remaining -= jsonLength(result.data);
    if (budget.remaining < 0) throw batchAnswerTooLarge(budget.limit);
    return result;
  })
  .use(async ({ getRawInput, next }) => {
    // Before zod sees it: zod would drop an own `__proto__` key without a word (docs/spec/limits.md).
    assertNoForbiddenKey(await getRawInput());
    return next();
  });

export interface CreateDocevalsRouterOptions {
  /** The service the procedures call, from `createDocevals({ storage, extractors })` of `@docevals/core`. */
  docevals: Docevals;
  /**
   * Event streams one organization may hold open at once: `iterations.events` subscriptions and REST's
   * `GET .../events` of the same service counted together (the service's one cap, as REST's
   * `limits.maxEventStreamsPerOrganization`): one more is a `TOO_MANY_REQUESTS` (docevals code `rate_limited`,
   * `data.retry_after` 5); a subscription's place is freed as soon as it ends. `0`: no cap. This option sets the
   * service's cap; a different value set elsewhere for the same service is a TypeError here.
   * @default the service's (`createDocevals({ limits: { maxEventStreamsPerOrganization } })`, 20)
   */
  maxEventStreamsPerOrganization?: number;
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
  const streams = eventStreamSlots(docevals);
  if (options.maxEventStreamsPerOrganization !== undefined) streams.configure(options.maxEventStreamsPerOrganization, 'createDocevalsRouter');
  const procedure = organizationProcedure;
  const op = operations;
  const table = tableProcedures(docevals);
  return t.router({
    ...table,
    evals: {
      ...table.evals,
      iterations: {
        ...table.evals.iterations,
        /**
         * The export's text in chunks (a page of documents each), as an async iterable: read it with
         * `httpBatchStreamLink` so it streams (docs/trpc.md).
         */
        export: procedure.input(op['evals.iterations.export'].input).query(async function* ({ ctx, input }) {
          const file = await op['evals.iterations.export'].call(docevals, ctx.organizationId, input);
          yield* file.chunks;
        }),
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
            let release: () => void;
            try {
              release = streams.take(ctx.organizationId);
            } catch (error) {
              throw toTRPCError(error);
            }
            const events = op['evals.iterations.events'].call(docevals, ctx.organizationId, {
              evaluation_id: input.evaluation_id,
              iteration_id: input.iteration_id,
              ...(input.lastEventId ? { last_event_id: input.lastEventId } : {}),
            })[Symbol.asyncIterator]();
            // The client went away: the pending read ends now (not at the iteration's next event) and the place frees.
            const leave = () => void events.return?.()?.catch(() => undefined);
            signal?.addEventListener('abort', leave, { once: true });
            try {
              for (let next = await events.next(); !next.done && !signal?.aborted; next = await events.next()) {
                yield tracked(next.value.id, next.value);
              }
            } catch (error) {
              // tRPC would report anything thrown inside a subscription as INTERNAL_SERVER_ERROR: keep its code.
              throw toTRPCError(error);
            } finally {
              signal?.removeEventListener('abort', leave);
              release();
              leave();
            }
          }),
      },
    },
  });
}

type Operations = typeof operations;

/** The query procedure of a row: its input and output schemas, its service call (the old router's `query(op)`). */
function queryOf<I extends z.ZodType, O extends z.ZodType>(docevals: Docevals, row: Operation<I, O>) {
  return organizationProcedure
    .input(row.input)
    .output(row.output)
    .query(({ ctx, input }) => row.call(docevals, ctx.organizationId, input as z.output<I>) as Promise<never>);
}

/** The mutation procedure of a row. */
function mutationOf<I extends z.ZodType, O extends z.ZodType>(docevals: Docevals, row: Operation<I, O>) {
  return organizationProcedure
    .input(row.input)
    .output(row.output)
    .mutation(({ ctx, input }) => row.call(docevals, ctx.organizationId, input as z.output<I>) as Promise<never>);
}

/** The tRPC procedure of one row of the table: exactly what {@link queryOf} or {@link mutationOf} builds for it. */
type ProcedureOf<Row> =
  Row extends Operation<infer I, infer O, unknown, infer P>
    ? P extends 'query'
      ? ReturnType<typeof queryOf<I, O>>
      : P extends 'mutation'
        ? ReturnType<typeof mutationOf<I, O>>
        : never
    : never;

/** `'a.b.c'` with value V as `{ a: { b: { c: V } } }`. */
type Nested<Path extends string, V> = Path extends `${infer Head}.${infer Rest}` ? { [K in Head]: Nested<Rest, V> } : { [K in Path]: V };
type Intersect<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** Merges an intersection of nested records into one record type, level by level (readable hovers, plain keys). */
type Merge<T> = T extends { _def: unknown } ? T : { [K in keyof T]: Merge<T[K]> };
type ProcedureNames = { [K in keyof Operations]: Operations[K] extends { procedure?: 'query' | 'mutation' } ? (Operations[K]['procedure'] extends undefined ? never : K) : never }[keyof Operations];

/** The procedures of every row of the table that names one, nested by the row's dotted name. */
export type TableProcedures = Merge<Intersect<{ [K in ProcedureNames]: Nested<K, ProcedureOf<Operations[K]>> }[ProcedureNames]>>;

/**
 * One procedure per row of the core's table that declares a `procedure` kind, at the row's name: its input and
 * output schemas, its service call. The types are the rows' ({@link TableProcedures}): the record is assembled at
 * run time from the same rows, so the one cast below only states what the loop built.
 */
function tableProcedures(docevals: Docevals): TableProcedures {
  const record: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(operations) as Array<[string, Operation]>) {
    if (!row.procedure) continue;
    const built = row.procedure === 'query' ? queryOf(docevals, row) : mutationOf(docevals, row);
    const path = name.split('.');
    let node = record;
    for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]!] = built;
  }
  // The loop above builds exactly the rows' procedures at their names; TypeScript cannot follow a loop's keys.
  return record as TableProcedures;
}

/** The type of the docevals router, for `createTRPCClient<DocevalsRouter>` and `inferRouterInputs/Outputs`. */
export type DocevalsRouter = ReturnType<typeof createDocevalsRouter>;
