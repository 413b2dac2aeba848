import { z } from 'zod';
import {
  addDocumentInputSchema,
  compareInputSchema,
  createEvaluationInputSchema,
  createIterationInputSchema,
  createProcessorInputSchema,
  deletedSchema,
  documentDistancesInputSchema,
  documentDistancesSchema,
  documentRefInputSchema,
  documentSchema,
  documentSummarySchema,
  evaluationComparisonSchema,
  evaluationRefInputSchema,
  evaluationSchema,
  evaluationSummarySchema,
  exportInputSchema,
  getIterationInputSchema,
  importAnnotationsInputSchema,
  importAnnotationsResultSchema,
  iterationEventSchema,
  iterationEventsInputSchema,
  iterationFieldsInputSchema,
  iterationFieldsSchema,
  iterationRefInputSchema,
  iterationSchema,
  iterationSummarySchema,
  leaderboardInputSchema,
  leaderboardSchema,
  listDocumentsInputSchema,
  listEvaluationsInputSchema,
  listIterationsInputSchema,
  listPredictionsInputSchema,
  listProcessorsInputSchema,
  listResultSchema,
  modelListSchema,
  predictionPageSchema,
  processIterationInputSchema,
  processorRefInputSchema,
  processorSchema,
  submitProcessorInputSchema,
  submitResultSchema,
  updateDocumentInputSchema,
  updateEvaluationInputSchema,
  updateIterationInputSchema,
  updateProcessorInputSchema,
} from './schemas/index.js';
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

const withoutView = listIterationsInputSchema.omit({ view: true });
const foreground = createIterationInputSchema.omit({ background: true });
const reprocess = processIterationInputSchema.omit({ background: true });

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
    input: createEvaluationInputSchema,
    output: evaluationSchema,
    call: (d, org, input) => d.evals.create(org, input),
  }),
  'evals.get': operation({
    input: evaluationRefInputSchema,
    output: evaluationSchema,
    call: (d, org, input) => d.evals.get(org, input),
  }),
  'evals.list': operation({
    input: listEvaluationsInputSchema.optional(),
    output: listResultSchema(evaluationSummarySchema),
    call: (d, org, input) => d.evals.list(org, input),
  }),
  'evals.update': operation({
    input: updateEvaluationInputSchema,
    output: evaluationSchema,
    call: (d, org, input) => d.evals.update(org, input),
  }),
  'evals.delete': operation({
    input: evaluationRefInputSchema,
    output: deletedSchema,
    call: (d, org, input) => d.evals.delete(org, input),
  }),
  'evals.compare': operation({
    input: compareInputSchema,
    output: evaluationComparisonSchema,
    call: (d, org, input) => d.evals.compare(org, input),
  }),
  'evals.leaderboard': operation({
    input: leaderboardInputSchema,
    output: leaderboardSchema,
    call: (d, org, input) => d.evals.leaderboard(org, input),
  }),

  'evals.documents.add': operation({
    input: addDocumentInputSchema,
    output: documentSchema,
    call: (d, org, input) => d.evals.documents.add(org, input),
  }),
  'evals.documents.list': operation({
    input: listDocumentsInputSchema,
    output: listResultSchema(z.union([documentSummarySchema, documentSchema])),
    call: (d, org, input) => d.evals.documents.list(org, input),
  }),
  'evals.documents.get': operation({
    input: documentRefInputSchema,
    output: documentSchema,
    call: (d, org, input) => d.evals.documents.get(org, input),
  }),
  'evals.documents.update': operation({
    input: updateDocumentInputSchema,
    output: documentSchema,
    call: (d, org, input) => d.evals.documents.update(org, input),
  }),
  'evals.documents.delete': operation({
    input: documentRefInputSchema,
    output: deletedSchema,
    call: (d, org, input) => d.evals.documents.delete(org, input),
  }),
  'evals.documents.import': operation({
    input: importAnnotationsInputSchema,
    output: importAnnotationsResultSchema,
    call: (d, org, input) => d.evals.documents.import(org, input),
  }),

  'evals.iterations.list': operation({
    input: withoutView,
    output: z.object({ data: z.array(iterationSchema) }),
    call: (d, org, input) => d.evals.iterations.list(org, { ...input, view: 'full' }),
  }),
  'evals.iterations.listSummaries': operation({
    input: withoutView,
    output: z.object({ data: z.array(iterationSummarySchema) }),
    call: (d, org, input) => d.evals.iterations.list(org, { ...input, view: 'summary' }),
  }),
  /** `view` in the input: whole iterations or summaries. */
  'evals.iterations.listAny': operation({
    input: listIterationsInputSchema,
    output: z.object({ data: z.array(z.union([iterationSchema, iterationSummarySchema])) }),
    call: (d, org, input) => d.evals.iterations.list(org, input),
  }),
  /** Answers when the iteration is done (every document failed: `extractor_error` with the iteration id). */
  'evals.iterations.create': operation({
    input: foreground,
    output: iterationSchema,
    call: (d, org, input) => d.evals.iterations.create(org, { ...input, background: false }),
  }),
  /** Answers at once with the summary; follow it with `events`. */
  'evals.iterations.createInBackground': operation({
    input: foreground,
    output: iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.create(org, { ...input, background: true }),
  }),
  /** `background` in the input: the iteration when done, or its summary at once. */
  'evals.iterations.createAny': operation({
    input: createIterationInputSchema,
    output: z.union([iterationSchema, iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.create(org, input),
  }),
  'evals.iterations.get': operation({
    input: iterationRefInputSchema,
    output: iterationSchema,
    call: (d, org, input) => d.evals.iterations.get(org, { ...input, view: 'full' }),
  }),
  'evals.iterations.getSummary': operation({
    input: iterationRefInputSchema,
    output: iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.get(org, { ...input, view: 'summary' }),
  }),
  /** `view` in the input. */
  'evals.iterations.getAny': operation({
    input: getIterationInputSchema,
    output: z.union([iterationSchema, iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.get(org, input),
  }),
  'evals.iterations.predictions': operation({
    input: listPredictionsInputSchema,
    output: predictionPageSchema,
    call: (d, org, input) => d.evals.iterations.predictions(org, input),
  }),
  'evals.iterations.delete': operation({
    input: iterationRefInputSchema,
    output: deletedSchema,
    call: (d, org, input) => d.evals.iterations.delete(org, input),
  }),
  'evals.iterations.process': operation({
    input: reprocess,
    output: iterationSchema,
    call: (d, org, input) => d.evals.iterations.process(org, { ...input, background: false }),
  }),
  'evals.iterations.processInBackground': operation({
    input: reprocess,
    output: iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.process(org, { ...input, background: true }),
  }),
  /** `background` in the input. */
  'evals.iterations.processAny': operation({
    input: processIterationInputSchema,
    output: z.union([iterationSchema, iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.process(org, input),
  }),
  'evals.iterations.update': operation({
    input: updateIterationInputSchema,
    output: iterationSchema,
    call: (d, org, input) => d.evals.iterations.update(org, input),
  }),
  'evals.iterations.distances': operation({
    input: documentDistancesInputSchema,
    output: documentDistancesSchema,
    call: (d, org, input) => d.evals.iterations.distances(org, input),
  }),
  'evals.iterations.fields': operation({
    input: iterationFieldsInputSchema,
    output: iterationFieldsSchema,
    call: (d, org, input) => d.evals.iterations.fields(org, input),
  }),
  /** The export's text as a stream of chunks (`ExportStream`), not a JSON answer. */
  'evals.iterations.export': streamOperation({
    input: exportInputSchema,
    output: z.string(),
    call: (d, org, input) => d.evals.iterations.export(org, input),
  }),
  'evals.iterations.cancel': operation({
    input: iterationRefInputSchema,
    output: iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.cancel(org, input),
  }),
  /** The iteration's events, as an async iterable of `output`; `last_event_id` resumes after that event. */
  'evals.iterations.events': streamOperation({
    input: iterationEventsInputSchema,
    output: iterationEventSchema,
    call: (d, org, input) => d.evals.iterations.events(org, input),
  }),

  'processors.create': operation({
    input: createProcessorInputSchema,
    output: processorSchema,
    call: (d, org, input) => d.processors.create(org, input),
  }),
  'processors.get': operation({
    input: processorRefInputSchema,
    output: processorSchema,
    call: (d, org, input) => d.processors.get(org, input),
  }),
  'processors.list': operation({
    input: listProcessorsInputSchema.optional(),
    output: listResultSchema(processorSchema),
    call: (d, org, input) => d.processors.list(org, input),
  }),
  'processors.update': operation({
    input: updateProcessorInputSchema,
    output: processorSchema,
    call: (d, org, input) => d.processors.update(org, input),
  }),
  'processors.delete': operation({
    input: processorRefInputSchema,
    output: deletedSchema,
    call: (d, org, input) => d.processors.delete(org, input),
  }),
  'processors.submit': operation({
    input: submitProcessorInputSchema,
    output: submitResultSchema,
    call: (d, org, input) => d.processors.submit(org, input),
  }),

  'models.list': operation({
    input: z.void(),
    output: modelListSchema,
    call: (d) => d.listModels(),
  }),
} as const;

/** The name of an operation of {@link operations}. */
export type OperationName = keyof typeof operations;
