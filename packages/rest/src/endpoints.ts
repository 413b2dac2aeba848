import { operations, type Docevals, type OperationName } from '@docevals/core';
import { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * One REST endpoint: where it lives and the operation of the core's table (`operations` of `@docevals/core`) it
 * serves, with the schemas of that operation split the HTTP way (path parameters, then the query or the body) and
 * its one service call. `input` is the body's fields, then the query's, then the path parameters (which win: a body
 * cannot retarget another object). The OpenAPI document describes each with its own schemas (openapi-operations.ts).
 */
export interface Endpoint {
  method: HttpMethod;
  /** OpenAPI form, `{name}` for a path parameter. */
  path: string;
  operationId: string;
  summary: string;
  tag: 'Evaluations' | 'Documents' | 'Iterations' | 'Processors' | 'Models';
  /** The operation of the core's table this endpoint serves. */
  operation: OperationName;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** The request body: the operation's input minus the path parameters. */
  body?: z.ZodObject;
  /** A body may be left out entirely (its fields all have defaults). */
  bodyOptional?: boolean;
  /** The body may also come as `multipart/form-data` (read-form-body.ts): the reference SDK's submit. */
  acceptsForm?: boolean;
  response: z.ZodType;
  /**
   * `file`: the call returns an `ExportStream`; the answer is its text streamed with its media type and a
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

/** What an endpoint adds to its operation: the HTTP route, and where the input's other fields travel. */
type Route = Omit<Endpoint, 'params' | 'query' | 'body' | 'response' | 'call'> & {
  /** Where the input's fields other than the path parameters travel (none: the path holds the whole input). */
  input?: 'body' | 'query';
  /** The path names the iteration alone: the evaluation is the iteration record's (the core's `locate`: 404 when none). */
  located?: true;
};

/** The endpoint of a route: the schemas split from the operation's input, and its call. */
function endpoint({ input: where, located, ...route }: Route): Endpoint {
  const operation = operations[route.operation];
  const input = operation.input instanceof z.ZodOptional ? operation.input.unwrap() : operation.input;
  const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const object: z.ZodObject = input instanceof z.ZodObject ? input : z.object({});
  // zod's mask type refuses number keys, which field names never are.
  const mask = (names: string[]) =>
    Object.fromEntries(names.map((name) => [name, true as const])) as Record<string, true> & Record<number, never>;
  const taken = located ? [...pathNames, 'evaluation_id'] : pathNames;
  const rest = taken.length > 0 ? object.omit(mask(taken)) : object;
  // The core validates `input` at runtime (the transports never check more than "a JSON object"): pass it on.
  const call = operation.call as (docevals: Docevals, organizationId: string, input: unknown) => Promise<unknown>;
  return {
    ...route,
    ...(pathNames.length > 0 ? { params: object.pick(mask(pathNames)) } : {}),
    ...(where ? { [where]: rest } : {}),
    response: operation.output,
    call: route.sse
      ? // The stream opens only for an iteration that exists: checked first, so an unknown one is a plain 404.
        (d, org, input) => operations['evals.iterations.getSummary'].call(d, org, input as never)
      : located
        ? async (d, org, input) =>
            call(d, org, { ...input, ...(await d.evals.iterations.locate(org, { iteration_id: input.iteration_id as string })) })
        : call,
  };
}

/** Every endpoint of docs/spec/interface.md section 4 and of docs/spec/service.md's REST paths table. */
export const ENDPOINTS: readonly Endpoint[] = ([
  // Evaluations
  {
    method: 'post',
    path: '/v1/evals',
    operationId: 'createEvaluation',
    summary: 'Create an evaluation (stores any document that has no file_id yet)',
    tag: 'Evaluations',
    operation: 'evals.create',
    input: 'body',
  },
  {
    method: 'get',
    path: '/v1/evals',
    operationId: 'listEvaluations',
    summary: 'List evaluations (cursor pagination): summaries; `expand=documents` for whole documents',
    tag: 'Evaluations',
    operation: 'evals.list',
    input: 'query',
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}',
    operationId: 'getEvaluation',
    summary: 'Get an evaluation; `view=summary` for it without its documents (their count, iterations as summaries)',
    tag: 'Evaluations',
    operation: 'evals.getAny',
    input: 'query',
  },
  {
    method: 'patch',
    path: '/v1/evals/{evaluation_id}',
    operationId: 'updateEvaluation',
    summary: 'Update an evaluation (omitted fields stay)',
    tag: 'Evaluations',
    operation: 'evals.update',
    input: 'body',
  },
  {
    method: 'delete',
    path: '/v1/evals/{evaluation_id}',
    operationId: 'deleteEvaluation',
    summary: 'Delete an evaluation',
    tag: 'Evaluations',
    operation: 'evals.delete',
  },
  // Documents
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/documents',
    operationId: 'addDocument',
    summary: 'Add a document to an evaluation',
    tag: 'Documents',
    operation: 'evals.documents.add',
    input: 'body',
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/documents',
    operationId: 'listDocuments',
    summary: "List an evaluation's documents: summaries; `expand=documents` for annotations and contents",
    tag: 'Documents',
    operation: 'evals.documents.list',
    input: 'query',
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/documents/{document_id}',
    operationId: 'getDocument',
    summary: 'Get a document',
    tag: 'Documents',
    operation: 'evals.documents.get',
  },
  {
    method: 'put',
    path: '/v1/evals/{evaluation_id}/documents/{document_id}',
    operationId: 'updateDocumentAnnotation',
    summary: "Update a document's annotation (recomputes every iteration's metrics)",
    tag: 'Documents',
    operation: 'evals.documents.update',
    input: 'body',
  },
  {
    method: 'delete',
    path: '/v1/evals/{evaluation_id}/documents/{document_id}',
    operationId: 'deleteDocument',
    summary: 'Delete a document (and its predictions)',
    tag: 'Documents',
    operation: 'evals.documents.delete',
  },
  // Iterations
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations',
    operationId: 'listIterations',
    summary: "List an evaluation's iterations, oldest first; `model` filters by exact model name; `view=summary`",
    tag: 'Iterations',
    operation: 'evals.iterations.listAny',
    input: 'query',
  },
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/iterations/create',
    operationId: 'createIteration',
    summary: "Run an iteration over the evaluation's documents",
    tag: 'Iterations',
    operation: 'evals.iterations.createAny',
    input: 'body',
    background: true,
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}',
    operationId: 'getIteration',
    summary: 'Get an iteration; `view=summary` for settings, status, progress and means only',
    tag: 'Iterations',
    operation: 'evals.iterations.getAny',
    input: 'query',
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/predictions',
    operationId: 'listIterationPredictions',
    summary: "A page of an iteration's predictions with their metrics, in document order (`limit`, `after`), or of some documents (`document_ids`)",
    tag: 'Iterations',
    operation: 'evals.iterations.predictions',
    input: 'query',
  },
  {
    method: 'delete',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}',
    operationId: 'deleteIteration',
    summary: 'Delete an iteration',
    tag: 'Iterations',
    operation: 'evals.iterations.delete',
  },
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/process',
    operationId: 'processIteration',
    summary: "Re-run an iteration's documents (all by default)",
    tag: 'Iterations',
    operation: 'evals.iterations.processAny',
    input: 'body',
    bodyOptional: true,
    background: true,
  },
  // Iterations by their id alone, as the reference SDK calls them: the evaluation is the iteration record's.
  {
    method: 'get',
    path: '/v1/evals/iterations/{iteration_id}',
    operationId: 'getIterationById',
    summary: 'Get an iteration by its id alone',
    tag: 'Iterations',
    operation: 'evals.iterations.get',
    located: true,
  },
  {
    method: 'put',
    path: '/v1/evals/iterations/{iteration_id}',
    operationId: 'updateIteration',
    summary: "Change an iteration's settings or json_schema and re-run its documents",
    tag: 'Iterations',
    operation: 'evals.iterations.update',
    input: 'body',
    located: true,
  },
  {
    method: 'delete',
    path: '/v1/evals/iterations/{iteration_id}',
    operationId: 'deleteIterationById',
    summary: 'Delete an iteration by its id alone',
    tag: 'Iterations',
    operation: 'evals.iterations.delete',
    located: true,
  },
  {
    method: 'get',
    path: '/v1/evals/iterations/{iteration_id}/compute_distances/{document_id}',
    operationId: 'computeDistances',
    summary: "One document's distances (1 − similarity) in an iteration",
    tag: 'Iterations',
    operation: 'evals.iterations.distances',
    located: true,
  },
  // Analyses (docs/spec/analysis.md)
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/fields',
    operationId: 'getIterationFields',
    summary: "Per-field summary of an iteration: every leaf field's mean similarity and outcome counts, worst first",
    tag: 'Iterations',
    operation: 'evals.iterations.fields',
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/export',
    operationId: 'exportIteration',
    summary: 'One row per document and leaf field (values and scores) as CSV or JSON Lines, streamed',
    tag: 'Iterations',
    operation: 'evals.iterations.export',
    input: 'query',
    produces: { kind: 'file', fileTypes: ['text/csv', 'application/x-ndjson'] },
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/compare',
    operationId: 'compareIterations',
    summary: 'Compare two iterations (`base`, `head`): field and document deltas, regressed and improved documents',
    tag: 'Evaluations',
    operation: 'evals.compare',
    input: 'query',
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/leaderboard',
    operationId: 'getLeaderboard',
    summary: "The evaluation's completed iterations ranked (`sort`, `order`), with the settings that differ",
    tag: 'Evaluations',
    operation: 'evals.leaderboard',
    input: 'query',
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/matrix',
    operationId: 'getMatrix',
    summary: "A page of the evaluation's documents with their similarity in every iteration (documents x iterations)",
    tag: 'Evaluations',
    operation: 'evals.matrix',
    input: 'query',
  },
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/documents/import',
    operationId: 'importAnnotations',
    summary: 'Update annotations from a JSONL or CSV file, row by row; refused rows change nothing',
    tag: 'Documents',
    operation: 'evals.documents.import',
    input: 'body',
    textBodies: { 'text/csv': 'csv', 'application/x-ndjson': 'jsonl', 'application/jsonl': 'jsonl' },
  },
  {
    method: 'post',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/cancel',
    operationId: 'cancelIteration',
    summary: "Cancel an iteration's run: no new extractor call, calls in flight aborted, predictions kept",
    tag: 'Iterations',
    operation: 'evals.iterations.cancel',
  },
  {
    method: 'get',
    path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/events',
    operationId: 'streamIterationEvents',
    summary:
      'Server-Sent Events of an iteration: `document`, `progress`, final `completed` | `failed` | `cancelled`; `Last-Event-ID` resumes',
    tag: 'Iterations',
    operation: 'evals.iterations.events',
    sse: true,
  },
  // Processors
  {
    method: 'post',
    path: '/v1/processors',
    operationId: 'createProcessor',
    summary: 'Create a processor',
    tag: 'Processors',
    operation: 'processors.create',
    input: 'body',
  },
  {
    method: 'get',
    path: '/v1/processors',
    operationId: 'listProcessors',
    summary: 'List processors (cursor pagination)',
    tag: 'Processors',
    operation: 'processors.list',
    input: 'query',
  },
  {
    method: 'get',
    path: '/v1/processors/{processor_id}',
    operationId: 'getProcessor',
    summary: 'Get a processor',
    tag: 'Processors',
    operation: 'processors.get',
  },
  {
    method: 'put',
    path: '/v1/processors/{processor_id}',
    operationId: 'updateProcessor',
    summary: 'Update a processor (changes the fields it carries, keeps the others)',
    tag: 'Processors',
    operation: 'processors.update',
    input: 'body',
  },
  {
    method: 'delete',
    path: '/v1/processors/{processor_id}',
    operationId: 'deleteProcessor',
    summary: 'Delete a processor',
    tag: 'Processors',
    operation: 'processors.delete',
  },
  {
    method: 'post',
    path: '/v1/processors/{processor_id}/submit',
    operationId: 'submitToProcessor',
    summary: "Run a processor's extraction on one document",
    tag: 'Processors',
    operation: 'processors.submit',
    input: 'body',
    acceptsForm: true,
  },
  // Models
  {
    method: 'get',
    path: '/v1/models',
    operationId: 'listModels',
    summary: "The models this host's extractors serve, with their modalities",
    tag: 'Models',
    operation: 'models.list',
  },
] satisfies Route[]).map(endpoint);
