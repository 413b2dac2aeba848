import { z } from 'zod';
import * as schemas from './schemas/index.js';
import type { Docevals } from './service/types.js';

/**
 * One operation of the docevals API, whatever the transport: the schema of its input (path parameters included, as
 * snake_case fields), the schema of its answer, and the one service call it is. A transport adds only what is its
 * own: REST the method, path and where each input field travels; tRPC the procedure kind.
 */
export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType, R = unknown> {
  /** The input the core validates (the service parses it again itself: a transport may pass it unchecked). */
  readonly input: I;
  /** The answer's shape (for an export, the text of the file; for events, one event). */
  readonly output: O;
  /** The service call, for the caller's organization. */
  readonly call: (docevals: Docevals, organizationId: string, input: z.output<I>) => R;
}

/** An operation whose answer is checked, at compile time, against its output schema. */
const operation = <I extends z.ZodType, O extends z.ZodType, R extends z.input<O> | Promise<z.input<O>>>(
  op: Operation<I, O, R>,
): Operation<I, O, R> => op;

/** An operation whose call answers something other than the output's JSON: a file stream, an event stream. */
const streamOperation = <I extends z.ZodType, O extends z.ZodType, R>(op: Operation<I, O, R>): Operation<I, O, R> => op;

const withoutView = schemas.listIterationsInputSchema.omit({ view: true });
const foreground = schemas.createIterationInputSchema.omit({ background: true });
const reprocess = schemas.processIterationInputSchema.omit({ background: true });

/**
 * Every operation of the API (docs/spec/interface.md section 4, docs/spec/service.md), keyed by a stable name that is
 * also the tRPC procedure's path. Both transports read this one table: `@docevals/rest`'s endpoints refer to an
 * operation by its name and add the HTTP route, `@docevals/trpc` builds each procedure from it.
 *
 * Where REST answers one of two shapes by a field of the input (`view=summary`, `"background": true`), the table has
 * one operation per shape (`get` / `getSummary`, `create` / `createInBackground`: one output type each, as typed
 * clients need) and one `…Any` operation that takes the field and answers either (REST's).
 *
 * @example
 * import { createDocevals, operations } from '@docevals/core';
 * const docevals = createDocevals({ storage });
 * const { input, call } = operations['evals.get'];
 * const evaluation = await call(docevals, 'org_1', input.parse({ evaluation_id: 'eval_1' }));
 */
export const operations = {
  'evals.create': operation({
    input: schemas.createEvaluationInputSchema,
    output: schemas.evaluationSchema,
    call: (d, org, input) => d.evals.create(org, input),
  }),
  'evals.get': operation({
    input: schemas.evaluationRefInputSchema,
    output: schemas.evaluationSchema,
    call: (d, org, input) => d.evals.get(org, { ...input, view: 'full' }),
  }),
  /** The evaluation without its documents: `document_count`, iterations as summaries. */
  'evals.getSummary': operation({
    input: schemas.evaluationRefInputSchema,
    output: schemas.evaluationOverviewSchema,
    call: (d, org, input) => d.evals.get(org, { ...input, view: 'summary' }),
  }),
  /** `view` in the input: the whole evaluation or its summary. */
  'evals.getAny': operation({
    input: schemas.getEvaluationInputSchema,
    output: z.union([schemas.evaluationSchema, schemas.evaluationOverviewSchema]),
    call: (d, org, input) => d.evals.get(org, input),
  }),
  'evals.list': operation({
    input: schemas.listEvaluationsInputSchema.optional(),
    output: schemas.listResultSchema(schemas.evaluationSummarySchema),
    call: (d, org, input) => d.evals.list(org, input),
  }),
  'evals.update': operation({
    input: schemas.updateEvaluationInputSchema,
    output: schemas.evaluationSchema,
    call: (d, org, input) => d.evals.update(org, input),
  }),
  'evals.delete': operation({
    input: schemas.evaluationRefInputSchema,
    output: schemas.deletedSchema,
    call: (d, org, input) => d.evals.delete(org, input),
  }),
  'evals.compare': operation({
    input: schemas.compareInputSchema,
    output: schemas.evaluationComparisonSchema,
    call: (d, org, input) => d.evals.compare(org, input),
  }),
  'evals.matrix': operation({
    input: schemas.matrixInputSchema,
    output: schemas.matrixSchema,
    call: (d, org, input) => d.evals.matrix(org, input),
  }),
  'evals.leaderboard': operation({
    input: schemas.leaderboardInputSchema,
    output: schemas.leaderboardSchema,
    call: (d, org, input) => d.evals.leaderboard(org, input),
  }),

  'evals.documents.add': operation({
    input: schemas.addDocumentInputSchema,
    output: schemas.documentSchema,
    call: (d, org, input) => d.evals.documents.add(org, input),
  }),
  'evals.documents.list': operation({
    input: schemas.listDocumentsInputSchema,
    output: schemas.listResultSchema(z.union([schemas.documentSummarySchema, schemas.documentSchema])),
    call: (d, org, input) => d.evals.documents.list(org, input),
  }),
  'evals.documents.get': operation({
    input: schemas.documentRefInputSchema,
    output: schemas.documentSchema,
    call: (d, org, input) => d.evals.documents.get(org, input),
  }),
  'evals.documents.update': operation({
    input: schemas.updateDocumentInputSchema,
    output: schemas.documentSchema,
    call: (d, org, input) => d.evals.documents.update(org, input),
  }),
  'evals.documents.delete': operation({
    input: schemas.documentRefInputSchema,
    output: schemas.deletedSchema,
    call: (d, org, input) => d.evals.documents.delete(org, input),
  }),
  'evals.documents.import': operation({
    input: schemas.importAnnotationsInputSchema,
    output: schemas.importAnnotationsResultSchema,
    call: (d, org, input) => d.evals.documents.import(org, input),
  }),

  'evals.iterations.list': operation({
    input: withoutView,
    output: z.object({ data: z.array(schemas.iterationSchema) }),
    call: (d, org, input) => d.evals.iterations.list(org, { ...input, view: 'full' }),
  }),
  'evals.iterations.listSummaries': operation({
    input: withoutView,
    output: z.object({ data: z.array(schemas.iterationSummarySchema) }),
    call: (d, org, input) => d.evals.iterations.list(org, { ...input, view: 'summary' }),
  }),
  /** `view` in the input: whole iterations or summaries. */
  'evals.iterations.listAny': operation({
    input: schemas.listIterationsInputSchema,
    output: z.object({ data: z.array(z.union([schemas.iterationSchema, schemas.iterationSummarySchema])) }),
    call: (d, org, input) => d.evals.iterations.list(org, input),
  }),
  /** Answers when the iteration is done (every document failed: `extractor_error` with the iteration id). */
  'evals.iterations.create': operation({
    input: foreground,
    output: schemas.iterationSchema,
    call: (d, org, input) => d.evals.iterations.create(org, { ...input, background: false }),
  }),
  /** Answers at once with the summary; follow it with `events`. */
  'evals.iterations.createInBackground': operation({
    input: foreground,
    output: schemas.iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.create(org, { ...input, background: true }),
  }),
  /** `background` in the input: the iteration when done, or its summary at once. */
  'evals.iterations.createAny': operation({
    input: schemas.createIterationInputSchema,
    output: z.union([schemas.iterationSchema, schemas.iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.create(org, input),
  }),
  'evals.iterations.get': operation({
    input: schemas.iterationRefInputSchema,
    output: schemas.iterationSchema,
    call: (d, org, input) => d.evals.iterations.get(org, { ...input, view: 'full' }),
  }),
  'evals.iterations.getSummary': operation({
    input: schemas.iterationRefInputSchema,
    output: schemas.iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.get(org, { ...input, view: 'summary' }),
  }),
  /** `view` in the input. */
  'evals.iterations.getAny': operation({
    input: schemas.getIterationInputSchema,
    output: z.union([schemas.iterationSchema, schemas.iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.get(org, input),
  }),
  'evals.iterations.predictions': operation({
    input: schemas.listPredictionsInputSchema,
    output: schemas.predictionPageSchema,
    call: (d, org, input) => d.evals.iterations.predictions(org, input),
  }),
  'evals.iterations.delete': operation({
    input: schemas.iterationRefInputSchema,
    output: schemas.deletedSchema,
    call: (d, org, input) => d.evals.iterations.delete(org, input),
  }),
  'evals.iterations.process': operation({
    input: reprocess,
    output: schemas.iterationSchema,
    call: (d, org, input) => d.evals.iterations.process(org, { ...input, background: false }),
  }),
  'evals.iterations.processInBackground': operation({
    input: reprocess,
    output: schemas.iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.process(org, { ...input, background: true }),
  }),
  /** `background` in the input. */
  'evals.iterations.processAny': operation({
    input: schemas.processIterationInputSchema,
    output: z.union([schemas.iterationSchema, schemas.iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.process(org, input),
  }),
  'evals.iterations.update': operation({
    input: schemas.updateIterationInputSchema,
    output: schemas.iterationSchema,
    call: (d, org, input) => d.evals.iterations.update(org, input),
  }),
  'evals.iterations.distances': operation({
    input: schemas.documentDistancesInputSchema,
    output: schemas.documentDistancesSchema,
    call: (d, org, input) => d.evals.iterations.distances(org, input),
  }),
  'evals.iterations.fields': operation({
    input: schemas.iterationFieldsInputSchema,
    output: schemas.iterationFieldsSchema,
    call: (d, org, input) => d.evals.iterations.fields(org, input),
  }),
  /** The export's text as a stream of chunks (`ExportStream`), not a JSON answer. */
  'evals.iterations.export': streamOperation({
    input: schemas.exportInputSchema,
    output: z.string(),
    call: (d, org, input) => d.evals.iterations.export(org, input),
  }),
  'evals.iterations.cancel': operation({
    input: schemas.iterationRefInputSchema,
    output: schemas.iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.cancel(org, input),
  }),
  /** The iteration's events, as an async iterable of `output`; `last_event_id` resumes after that event. */
  'evals.iterations.events': streamOperation({
    input: schemas.iterationEventsInputSchema,
    output: schemas.iterationEventSchema,
    call: (d, org, input) => d.evals.iterations.events(org, input),
  }),

  'processors.create': operation({
    input: schemas.createProcessorInputSchema,
    output: schemas.processorSchema,
    call: (d, org, input) => d.processors.create(org, input),
  }),
  'processors.get': operation({
    input: schemas.processorRefInputSchema,
    output: schemas.processorSchema,
    call: (d, org, input) => d.processors.get(org, input),
  }),
  'processors.list': operation({
    input: schemas.listProcessorsInputSchema.optional(),
    output: schemas.listResultSchema(schemas.processorSchema),
    call: (d, org, input) => d.processors.list(org, input),
  }),
  'processors.update': operation({
    input: schemas.updateProcessorInputSchema,
    output: schemas.processorSchema,
    call: (d, org, input) => d.processors.update(org, input),
  }),
  'processors.delete': operation({
    input: schemas.processorRefInputSchema,
    output: schemas.deletedSchema,
    call: (d, org, input) => d.processors.delete(org, input),
  }),
  'processors.submit': operation({
    input: schemas.submitProcessorInputSchema,
    output: schemas.submitResultSchema,
    call: (d, org, input) => d.processors.submit(org, input),
  }),

  'models.list': operation({
    input: z.void(),
    output: schemas.modelListSchema,
    call: (d, org) => d.listModels(org),
  }),
} as const;

/** The name of an operation of {@link operations}. */
export type OperationName = keyof typeof operations;
