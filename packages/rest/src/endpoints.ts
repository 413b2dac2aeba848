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
  createEvaluationInputSchema,
  createIterationInputSchema,
  createProcessorInputSchema,
  deletedSchema,
  documentDistancesInputSchema,
  documentDistancesSchema,
  documentRefInputSchema,
  documentSchema,
  documentSummarySchema,
  evaluationRefInputSchema,
  evaluationSchema,
  iterationIdInputSchema,
  evaluationSummarySchema,
  getIterationInputSchema,
  iterationEventSchema,
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
  processorRefInputSchema,
  processorSchema,
  submitProcessorInputSchema,
  submitResultSchema,
  updateDocumentInputSchema,
  updateEvaluationInputSchema,
  updateIterationInputSchema,
  updateProcessorInputSchema,
  type Docevals,
} from '@docevals/core';
import { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * One REST endpoint: where it lives, the core schemas that describe it (for the OpenAPI document only: the core
 * validates every input itself), and the one service call it translates to. `input` is the body's fields, then the
 * query's, then the path parameters (which win: a body cannot retarget another object).
 */
export interface Endpoint {
  method: HttpMethod;
  /** OpenAPI form, `{name}` for a path parameter. */
  path: string;
  operationId: string;
  summary: string;
  tag: 'Evaluations' | 'Documents' | 'Iterations' | 'Processors' | 'Models';
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** The request body: a core input schema minus the path parameters. */
  body?: z.ZodObject;
  /** A body may be left out entirely (its fields all have defaults). */
  bodyOptional?: boolean;
  /** The body may also come as `multipart/form-data` (read-form-body.ts): the reference SDK's submit. */
  acceptsForm?: boolean;
  response: z.ZodType;
  /**
   * `file`: the call returns an {@link ExportStream}; the answer is its text streamed with its media type and a
   * `Content-Disposition` file name (the OpenAPI document lists `fileTypes` as the response's media types).
   */
  produces?: { kind: 'file'; fileTypes: readonly string[] };
  /** Media types other than JSON the body may come in, with the input they become (`{ format, content }`). */
  textBodies?: Readonly<Record<string, string>>;
  /** `"background": true` in the body answers 202 with a `Location` (create, process). */
  background?: true;
  /** A Server-Sent Events stream of these events instead of one JSON answer (`streamEvents` is called). */
  sse?: true;
  call(docevals: Docevals, organizationId: string, input: Record<string, unknown>): Promise<unknown>;
}

const evaluationId = { evaluation_id: true } as const;
const listOf = listResultSchema;

// The core validates `input` at runtime (the transports never check more than "a JSON object"): cast, don't check.
type Input<F extends (...args: never[]) => unknown> = Parameters<F>[1];
const castInput = <F extends (...args: never[]) => unknown>(input: Record<string, unknown>) => input as NonNullable<Input<F>>;

/** The evaluation an iteration belongs to, from the iteration's id (the core's `locate`: 404 when there is none). */
const locate = (d: Docevals, org: string, input: Record<string, unknown>) =>
  d.evals.iterations.locate(org, { iteration_id: input.iteration_id as string });

/** Every endpoint of docs/spec/interface.md section 4 and of docs/spec/service.md's REST paths table. */
export const ENDPOINTS: readonly Endpoint[] = [
  // Evaluations
  {
    method: 'post',
    path: '/v1/evals',
    operationId: 'createEvaluation',
    summary: 'Create an evaluation (stores any document that has no file_id yet)',
    tag: 'Evaluations',
    body: createEvaluationInputSchema,
    response: evaluationSchema,
    call: (d, org, input) => d.evals.create(org, castInput<Docevals['evals']['create']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals',
    operationId: 'listEvaluations',
    summary: 'List evaluations (cursor pagination): summaries; `expand=documents` for whole documents',
    tag: 'Evaluations',
    query: listEvaluationsInputSchema,
    response: listOf(evaluationSummarySchema),
    call: (d, org, input) => d.evals.list(org, castInput<Docevals['evals']['list']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}',
    operationId: 'getEvaluation',
    summary: 'Get an evaluation',
    tag: 'Evaluations',
    params: evaluationRefInputSchema,
    response: evaluationSchema,
    call: (d, org, input) => d.evals.get(org, castInput<Docevals['evals']['get']>(input)),
  },
  {
    method: 'patch',
    path: '/v1/evals/{evaluation_id}',
    operationId: 'updateEvaluation',
    summary: 'Update an evaluation (omitted fields stay)',
    tag: 'Evaluations',
    params: evaluationRefInputSchema,
    body: updateEvaluationInputSchema.omit(evaluationId),
    response: evaluationSchema,
    call: (d, org, input) => d.evals.update(org, castInput<Docevals['evals']['update']>(input)),
  },
  {
    method: 'delete',
    path: '/v1/evals/{evaluation_id}',
    operationId: 'deleteEvaluation',
    summary: 'Delete an evaluation',
    tag: 'Evaluations',
    params: evaluationRefInputSchema,
    response: deletedSchema,
    call: (d, org, input) => d.evals.delete(org, castInput<Docevals['evals']['delete']>(input)),
  },
  // Documents
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/documents',
    operationId: 'addDocument',
    summary: 'Add a document to an evaluation',
    tag: 'Documents',
    params: evaluationRefInputSchema,
    body: addDocumentInputSchema.omit(evaluationId),
    response: documentSchema,
    call: (d, org, input) => d.evals.documents.add(org, castInput<Docevals['evals']['documents']['add']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/documents',
    operationId: 'listDocuments',
    summary: "List an evaluation's documents: summaries; `expand=documents` for annotations and contents",
    tag: 'Documents',
    params: evaluationRefInputSchema,
    query: listDocumentsInputSchema.omit(evaluationId),
    response: listOf(z.union([documentSummarySchema, documentSchema])),
    call: (d, org, input) => d.evals.documents.list(org, castInput<Docevals['evals']['documents']['list']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/documents/{document_id}',
    operationId: 'getDocument',
    summary: 'Get a document',
    tag: 'Documents',
    params: documentRefInputSchema,
    response: documentSchema,
    call: (d, org, input) => d.evals.documents.get(org, castInput<Docevals['evals']['documents']['get']>(input)),
  },
  {
    method: 'put',
    path: '/v1/evals/{evaluation_id}/documents/{document_id}',
    operationId: 'updateDocumentAnnotation',
    summary: "Update a document's annotation (recomputes every iteration's metrics)",
    tag: 'Documents',
    params: documentRefInputSchema,
    body: updateDocumentInputSchema.omit({ evaluation_id: true, document_id: true }),
    response: documentSchema,
    call: (d, org, input) => d.evals.documents.update(org, castInput<Docevals['evals']['documents']['update']>(input)),
  },
  {
    method: 'delete',
    path: '/v1/evals/{evaluation_id}/documents/{document_id}',
    operationId: 'deleteDocument',
    summary: 'Delete a document (and its predictions)',
    tag: 'Documents',
    params: documentRefInputSchema,
    response: deletedSchema,
    call: (d, org, input) => d.evals.documents.delete(org, castInput<Docevals['evals']['documents']['delete']>(input)),
  },
  // Iterations
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations',
    operationId: 'listIterations',
    summary: "List an evaluation's iterations, oldest first; `model` filters by exact model name; `view=summary`",
    tag: 'Iterations',
    params: evaluationRefInputSchema,
    query: listIterationsInputSchema.omit(evaluationId),
    response: z.object({ data: z.array(z.union([iterationSchema, iterationSummarySchema])) }),
    call: (d, org, input) => d.evals.iterations.list(org, castInput<Docevals['evals']['iterations']['list']>(input)),
  },
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/iterations/create',
    operationId: 'createIteration',
    summary: "Run an iteration over the evaluation's documents",
    tag: 'Iterations',
    params: evaluationRefInputSchema,
    body: createIterationInputSchema.omit(evaluationId),
    response: z.union([iterationSchema, iterationSummarySchema]),
    background: true,
    call: (d, org, input) => d.evals.iterations.create(org, castInput<Docevals['evals']['iterations']['create']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}',
    operationId: 'getIteration',
    summary: 'Get an iteration; `view=summary` for settings, status, progress and means only',
    tag: 'Iterations',
    params: iterationRefInputSchema,
    query: getIterationInputSchema.omit({ evaluation_id: true, iteration_id: true }),
    response: z.union([iterationSchema, iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.get(org, castInput<Docevals['evals']['iterations']['get']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/predictions',
    operationId: 'listIterationPredictions',
    summary: "A page of an iteration's predictions with their metrics, in document order (`limit`, `after`)",
    tag: 'Iterations',
    params: iterationRefInputSchema,
    query: listPredictionsInputSchema.omit({ evaluation_id: true, iteration_id: true }),
    response: predictionPageSchema,
    call: (d, org, input) =>
      d.evals.iterations.predictions(org, castInput<Docevals['evals']['iterations']['predictions']>(input)),
  },
  {
    method: 'delete',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}',
    operationId: 'deleteIteration',
    summary: 'Delete an iteration',
    tag: 'Iterations',
    params: iterationRefInputSchema,
    response: deletedSchema,
    call: (d, org, input) => d.evals.iterations.delete(org, castInput<Docevals['evals']['iterations']['delete']>(input)),
  },
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/process',
    operationId: 'processIteration',
    summary: "Re-run an iteration's documents (all by default)",
    tag: 'Iterations',
    params: iterationRefInputSchema,
    body: processIterationInputSchema.omit({ evaluation_id: true, iteration_id: true }),
    bodyOptional: true,
    response: z.union([iterationSchema, iterationSummarySchema]),
    background: true,
    call: (d, org, input) => d.evals.iterations.process(org, castInput<Docevals['evals']['iterations']['process']>(input)),
  },
  // Iterations by their id alone, as the reference SDK calls them: the evaluation is the iteration record's.
  {
    method: 'get',
    path: '/v1/evals/iterations/{iteration_id}',
    operationId: 'getIterationById',
    summary: 'Get an iteration by its id alone',
    tag: 'Iterations',
    params: iterationIdInputSchema,
    response: iterationSchema,
    call: async (d, org, input) =>
      d.evals.iterations.get(org, { ...castInput<Docevals['evals']['iterations']['get']>(input), ...(await locate(d, org, input)) }),
  },
  {
    method: 'put',
    path: '/v1/evals/iterations/{iteration_id}',
    operationId: 'updateIteration',
    summary: "Change an iteration's settings or json_schema and re-run its documents",
    tag: 'Iterations',
    params: iterationIdInputSchema,
    body: updateIterationInputSchema.omit({ evaluation_id: true, iteration_id: true }),
    response: iterationSchema,
    call: async (d, org, input) =>
      d.evals.iterations.update(org, { ...castInput<Docevals['evals']['iterations']['update']>(input), ...(await locate(d, org, input)) }),
  },
  {
    method: 'delete',
    path: '/v1/evals/iterations/{iteration_id}',
    operationId: 'deleteIterationById',
    summary: 'Delete an iteration by its id alone',
    tag: 'Iterations',
    params: iterationIdInputSchema,
    response: deletedSchema,
    call: async (d, org, input) =>
      d.evals.iterations.delete(org, { ...castInput<Docevals['evals']['iterations']['delete']>(input), ...(await locate(d, org, input)) }),
  },
  {
    method: 'get',
    path: '/v1/evals/iterations/{iteration_id}/compute_distances/{document_id}',
    operationId: 'computeDistances',
    summary: "One document's distances (1 − similarity) in an iteration",
    tag: 'Iterations',
    params: iterationIdInputSchema.extend({ document_id: documentDistancesInputSchema.shape.document_id }),
    response: documentDistancesSchema,
    call: async (d, org, input) =>
      d.evals.iterations.distances(org, {
        ...castInput<Docevals['evals']['iterations']['distances']>(input),
        ...(await locate(d, org, input)),
      }),
  },
  // Analyses (docs/spec/analysis.md)
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/fields',
    operationId: 'getIterationFields',
    summary: "Per-field summary of an iteration: every leaf field's mean similarity and outcome counts, worst first",
    tag: 'Iterations',
    params: iterationFieldsInputSchema,
    response: iterationFieldsSchema,
    call: (d, org, input) => d.evals.iterations.fields(org, castInput<Docevals['evals']['iterations']['fields']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/export',
    operationId: 'exportIteration',
    summary: 'One row per document and leaf field (values and scores) as CSV or JSON Lines, streamed',
    tag: 'Iterations',
    params: iterationRefInputSchema,
    query: exportInputSchema.omit({ evaluation_id: true, iteration_id: true }),
    response: z.string(),
    produces: { kind: 'file', fileTypes: ['text/csv', 'application/x-ndjson'] },
    call: (d, org, input) => d.evals.iterations.export(org, castInput<Docevals['evals']['iterations']['export']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/compare',
    operationId: 'compareIterations',
    summary: 'Compare two iterations (`base`, `head`): field and document deltas, regressed and improved documents',
    tag: 'Evaluations',
    params: evaluationRefInputSchema,
    query: compareInputSchema.omit({ evaluation_id: true }),
    response: evaluationComparisonSchema,
    call: (d, org, input) => d.evals.compare(org, castInput<Docevals['evals']['compare']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/leaderboard',
    operationId: 'getLeaderboard',
    summary: "The evaluation's completed iterations ranked (`sort`, `order`), with the settings that differ",
    tag: 'Evaluations',
    params: evaluationRefInputSchema,
    query: leaderboardInputSchema.omit({ evaluation_id: true }),
    response: leaderboardSchema,
    call: (d, org, input) => d.evals.leaderboard(org, castInput<Docevals['evals']['leaderboard']>(input)),
  },
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/documents/import',
    operationId: 'importAnnotations',
    summary: 'Update annotations from a JSONL or CSV file, row by row; refused rows change nothing',
    tag: 'Documents',
    params: evaluationRefInputSchema,
    body: importAnnotationsInputSchema.omit({ evaluation_id: true }),
    textBodies: { 'text/csv': 'csv', 'application/x-ndjson': 'jsonl', 'application/jsonl': 'jsonl' },
    response: importAnnotationsResultSchema,
    call: (d, org, input) => d.evals.documents.import(org, castInput<Docevals['evals']['documents']['import']>(input)),
  },
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/cancel',
    operationId: 'cancelIteration',
    summary: "Cancel an iteration's run: no new extractor call, calls in flight aborted, predictions kept",
    tag: 'Iterations',
    params: iterationRefInputSchema,
    response: iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.cancel(org, castInput<Docevals['evals']['iterations']['cancel']>(input)),
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/events',
    operationId: 'streamIterationEvents',
    summary:
      'Server-Sent Events of an iteration: `document`, `progress`, final `completed` | `failed` | `cancelled`; `Last-Event-ID` resumes',
    tag: 'Iterations',
    params: iterationRefInputSchema,
    response: iterationEventSchema,
    sse: true,
    // Checked before the stream opens, so an unknown iteration is a plain 404.
    call: (d, org, input) =>
      d.evals.iterations.get(org, { evaluation_id: String(input.evaluation_id), iteration_id: String(input.iteration_id), view: 'summary' }),
  },
  // Processors
  {
    method: 'post',
    path: '/v1/processors',
    operationId: 'createProcessor',
    summary: 'Create a processor',
    tag: 'Processors',
    body: createProcessorInputSchema,
    response: processorSchema,
    call: (d, org, input) => d.processors.create(org, castInput<Docevals['processors']['create']>(input)),
  },
  {
    method: 'get',
    path: '/v1/processors',
    operationId: 'listProcessors',
    summary: 'List processors (cursor pagination)',
    tag: 'Processors',
    query: listProcessorsInputSchema,
    response: listOf(processorSchema),
    call: (d, org, input) => d.processors.list(org, castInput<Docevals['processors']['list']>(input)),
  },
  {
    method: 'get',
    path: '/v1/processors/{processor_id}',
    operationId: 'getProcessor',
    summary: 'Get a processor',
    tag: 'Processors',
    params: processorRefInputSchema,
    response: processorSchema,
    call: (d, org, input) => d.processors.get(org, castInput<Docevals['processors']['get']>(input)),
  },
  {
    method: 'put',
    path: '/v1/processors/{processor_id}',
    operationId: 'updateProcessor',
    summary: 'Update a processor (changes the fields it carries, keeps the others)',
    tag: 'Processors',
    params: processorRefInputSchema,
    body: updateProcessorInputSchema.omit({ processor_id: true }),
    response: processorSchema,
    call: (d, org, input) => d.processors.update(org, castInput<Docevals['processors']['update']>(input)),
  },
  {
    method: 'delete',
    path: '/v1/processors/{processor_id}',
    operationId: 'deleteProcessor',
    summary: 'Delete a processor',
    tag: 'Processors',
    params: processorRefInputSchema,
    response: deletedSchema,
    call: (d, org, input) => d.processors.delete(org, castInput<Docevals['processors']['delete']>(input)),
  },
  {
    method: 'post',
    path: '/v1/processors/{processor_id}/submit',
    operationId: 'submitToProcessor',
    summary: "Run a processor's extraction on one document",
    tag: 'Processors',
    params: processorRefInputSchema,
    body: submitProcessorInputSchema.omit({ processor_id: true }),
    acceptsForm: true,
    response: submitResultSchema,
    call: (d, org, input) => d.processors.submit(org, castInput<Docevals['processors']['submit']>(input)),
  },
  // Models
  {
    method: 'get',
    path: '/v1/models',
    operationId: 'listModels',
    summary: "The models this host's extractors serve, with their modalities",
    tag: 'Models',
    response: modelListSchema,
    call: (d) => d.listModels(),
  },
];
