import { z } from 'zod';
import * as schemas from '../schemas/index.js';
import { operation, streamOperation } from './define.js';

const withoutView = schemas.listIterationsInputSchema.omit({ view: true });
const foreground = schemas.createIterationInputSchema.omit({ background: true });
const reprocess = schemas.processIterationInputSchema.omit({ background: true });

/** Iterations: runs of an extractor over an evaluation, their predictions, metrics, exports and events. */
export const iterationOperations = {
  'evals.iterations.list': operation({
    procedure: 'query',
    input: withoutView,
    output: z.object({ data: z.array(schemas.iterationSchema) }),
    call: (d, org, input) => d.evals.iterations.list(org, { ...input, view: 'full' }),
  }),
  'evals.iterations.listSummaries': operation({
    procedure: 'query',
    input: withoutView,
    output: z.object({ data: z.array(schemas.iterationSummarySchema) }),
    call: (d, org, input) => d.evals.iterations.list(org, { ...input, view: 'summary' }),
  }),
  /** `view` in the input: whole iterations or summaries. */
  'evals.iterations.listAny': operation({
    input: schemas.listIterationsInputSchema,
    output: z.object({ data: z.array(z.union([schemas.iterationSchema, schemas.iterationSummarySchema])) }),
    call: (d, org, input) => d.evals.iterations.list(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/iterations',
      operationId: 'listIterations',
      tag: 'Iterations',
      summary: 'List an evaluation\'s iterations, oldest first; `model` filters by exact model name; `view=summary`',
      description:
        'Every iteration of the evaluation, oldest first (no pagination); `model` keeps those of one model. ' +
        '`view=summary` leaves out predictions and item metrics: two small reads per iteration whatever its ' +
        'size.',
      input: 'query',
    },
  }),
  /** Answers when the iteration is done (every document failed: `extractor_error` with the iteration id). */
  'evals.iterations.create': operation({
    procedure: 'mutation',
    input: foreground,
    output: schemas.iterationSchema,
    call: (d, org, input) => d.evals.iterations.create(org, { ...input, background: false }),
  }),
  /** Answers at once with the summary; follow it with `events`. */
  'evals.iterations.createInBackground': operation({
    procedure: 'mutation',
    input: foreground,
    output: schemas.iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.create(org, { ...input, background: true }),
  }),
  /** `background` in the input: the iteration when done, or its summary at once. */
  'evals.iterations.createAny': operation({
    input: schemas.createIterationInputSchema,
    output: z.union([schemas.iterationSchema, schemas.iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.create(org, input),
    rest: {
      method: 'post',
      path: '/v1/evals/{evaluation_id}/iterations/create',
      operationId: 'createIteration',
      tag: 'Iterations',
      summary: 'Run an iteration over the evaluation\'s documents',
      description:
        'Runs an extraction over every document of the evaluation with these settings (over the evaluation\'s ' +
        'defaults), scores each prediction against its annotation and stores the iteration. It answers when ' +
        'every document has run; a document whose extraction failed has `{}` and the reason in ' +
        '`metadata.error`.',
      input: 'body',
      background: true,
    },
  }),
  'evals.iterations.get': operation({
    procedure: 'query',
    input: schemas.iterationRefInputSchema,
    output: schemas.iterationSchema,
    call: (d, org, input) => d.evals.iterations.get(org, { ...input, view: 'full' }),
    rest: {
      method: 'get',
      path: '/v1/evals/iterations/{iteration_id}',
      operationId: 'getIterationById',
      tag: 'Iterations',
      summary: 'Get an iteration by its id alone',
      description:
        'The same as `GET /v1/evals/{evaluation_id}/iterations/{iteration_id}`, with the iteration named by ' +
        'its id alone (the reference SDK\'s path).',
      located: true,
    },
  }),
  'evals.iterations.getSummary': operation({
    procedure: 'query',
    input: schemas.iterationRefInputSchema,
    output: schemas.iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.get(org, { ...input, view: 'summary' }),
  }),
  /** `view` in the input. */
  'evals.iterations.getAny': operation({
    input: schemas.getIterationInputSchema,
    output: z.union([schemas.iterationSchema, schemas.iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.get(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}',
      operationId: 'getIteration',
      tag: 'Iterations',
      summary: 'Get an iteration; `view=summary` for settings, status, progress and means only',
      description:
        'An iteration with its settings, predictions and metrics (a large one is streamed). `view=summary`: ' +
        'its settings, status, progress, usage and means only; for the predictions of a large iteration, read ' +
        '`.../predictions` a page at a time.',
      input: 'query',
    },
  }),
  'evals.iterations.predictions': operation({
    procedure: 'query',
    input: schemas.listPredictionsInputSchema,
    output: schemas.predictionPageSchema,
    call: (d, org, input) => d.evals.iterations.predictions(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/predictions',
      operationId: 'listIterationPredictions',
      tag: 'Iterations',
      summary: 
        'A page of an iteration\'s predictions with their metrics, in document order (`limit`, `after`), or of ' +
        'some documents (`document_ids`)',
      description:
        'A page of the iteration\'s predictions with their metrics, in the evaluation\'s document order: pass ' +
        '`list_metadata.after` as `after` for the next page. A document without a prediction is `pending`. ' +
        '`document_ids=a,b`: those documents only, read by their ids, in that order (one document\'s ' +
        'prediction in one request, however large the evaluation).',
      input: 'query',
    },
  }),
  'evals.iterations.delete': operation({
    procedure: 'mutation',
    input: schemas.iterationRefInputSchema,
    output: schemas.deletedSchema,
    call: (d, org, input) => d.evals.iterations.delete(org, input),
    rest: [
      {
        method: 'delete',
        path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}',
        operationId: 'deleteIteration',
        tag: 'Iterations',
        summary: 'Delete an iteration',
        description: 'Deletes an iteration and its predictions.',
      },
      {
        method: 'delete',
        path: '/v1/evals/iterations/{iteration_id}',
        operationId: 'deleteIterationById',
        tag: 'Iterations',
        summary: 'Delete an iteration by its id alone',
        description:
          'The same as `DELETE /v1/evals/{evaluation_id}/iterations/{iteration_id}`, by the iteration\'s id ' +
          'alone.',
        located: true,
      },
    ],
  }),
  'evals.iterations.process': operation({
    procedure: 'mutation',
    input: reprocess,
    output: schemas.iterationSchema,
    call: (d, org, input) => d.evals.iterations.process(org, { ...input, background: false }),
  }),
  'evals.iterations.processInBackground': operation({
    procedure: 'mutation',
    input: reprocess,
    output: schemas.iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.process(org, { ...input, background: true }),
  }),
  /** `background` in the input. */
  'evals.iterations.processAny': operation({
    input: schemas.processIterationInputSchema,
    output: z.union([schemas.iterationSchema, schemas.iterationSummarySchema]),
    call: (d, org, input) => d.evals.iterations.process(org, input),
    rest: {
      method: 'post',
      path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/process',
      operationId: 'processIteration',
      tag: 'Iterations',
      summary: 'Re-run an iteration\'s documents (all by default)',
      description:
        'Re-runs the extraction of some or all of an iteration\'s documents with its settings, then recomputes ' +
        'its metrics: every document by default, the `document_ids` given, or with `only_missing` those ' +
        'without a prediction.',
      input: 'body',
      bodyOptional: true,
      background: true,
    },
  }),
  'evals.iterations.update': operation({
    procedure: 'mutation',
    input: schemas.updateIterationInputSchema,
    output: schemas.iterationSchema,
    call: (d, org, input) => d.evals.iterations.update(org, input),
    rest: {
      method: 'put',
      path: '/v1/evals/iterations/{iteration_id}',
      operationId: 'updateIteration',
      tag: 'Iterations',
      summary: 'Change an iteration\'s settings or json_schema and re-run its documents',
      description:
        'Changes an iteration\'s inference settings (the given ones over its own) or its json_schema (same ' +
        'schema_data_id as the evaluation), then extracts every document again and recomputes the metrics. ' +
        'When nothing changes, the iteration is answered as it is and nothing runs. The body may be a whole ' +
        'Iteration, as the reference SDK sends it: only `inference_settings` and `json_schema` are read.',
      input: 'body',
      located: true,
    },
  }),
  'evals.iterations.distances': operation({
    procedure: 'query',
    input: schemas.documentDistancesInputSchema,
    output: schemas.documentDistancesSchema,
    call: (d, org, input) => d.evals.iterations.distances(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/iterations/{iteration_id}/compute_distances/{document_id}',
      operationId: 'computeDistances',
      tag: 'Iterations',
      summary: 'One document\'s distances (1 − similarity) in an iteration',
      description:
        'How far one document\'s prediction is from its annotation in an iteration: 1 − similarity for every ' +
        'field (the tree of the item metric\'s `similarities`) and for the document. A 404 for a document the ' +
        'iteration has not run yet.',
      located: true,
    },
  }),
  'evals.iterations.fields': operation({
    procedure: 'query',
    input: schemas.iterationFieldsInputSchema,
    output: schemas.iterationFieldsSchema,
    call: (d, org, input) => d.evals.iterations.fields(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/fields',
      operationId: 'getIterationFields',
      tag: 'Iterations',
      summary: 'Per-field summary of an iteration: every leaf field\'s mean similarity and outcome counts, worst first',
      description:
        'Every leaf field of the iteration (list items collapsed to `*`): its mean similarity and aligned ' +
        'mean over the succeeded documents, and in how many documents it was exact, partial, missing or ' +
        'unexpected. Worst first.',
    },
  }),
  /** The export's text as a stream of chunks (`ExportStream`), not a JSON answer. */
  'evals.iterations.export': streamOperation({
    input: schemas.exportInputSchema,
    output: z.string(),
    call: (d, org, input) => d.evals.iterations.export(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/export',
      operationId: 'exportIteration',
      tag: 'Iterations',
      summary: 'One row per document and leaf field (values and scores) as CSV or JSON Lines, streamed',
      description:
        'One row per document and scored leaf path: document id, filename, status, path, annotation value, ' +
        'predicted value, similarity and aligned similarity. Streamed a page of documents at a time; ' +
        '`Content-Disposition` names the file. CSV is RFC 4180 quoted UTF-8; JSONL keeps the values\' JSON ' +
        'types.',
      input: 'query',
      file: ['text/csv', 'application/x-ndjson'],
    },
  }),
  'evals.iterations.cancel': operation({
    procedure: 'mutation',
    input: schemas.iterationRefInputSchema,
    output: schemas.iterationSummarySchema,
    call: (d, org, input) => d.evals.iterations.cancel(org, input),
    rest: {
      method: 'post',
      path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/cancel',
      operationId: 'cancelIteration',
      tag: 'Iterations',
      summary: 'Cancel an iteration\'s run: no new extractor call, calls in flight aborted, predictions kept',
      description:
        'Stops the iteration\'s run: no new extractor call starts, calls in flight are aborted, the ' +
        'predictions done so far are kept, and the status becomes `cancelled`. `process` with `only_missing` ' +
        'completes it later.',
    },
  }),
  /** The iteration's events, as an async iterable of `output`; `last_event_id` resumes after that event. */
  'evals.iterations.events': streamOperation({
    input: schemas.iterationEventsInputSchema,
    output: schemas.iterationEventSchema,
    call: (d, org, input) => d.evals.iterations.events(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/iterations/{iteration_id}/events',
      operationId: 'streamIterationEvents',
      tag: 'Iterations',
      summary: 
        'Server-Sent Events of an iteration: `document`, `progress`, final `completed` | `failed` | ' +
        '`cancelled`; `Last-Event-ID` resumes',
      description:
        'The run as Server-Sent Events: one `document` event per finished document, `progress` counts, then ' +
        'the final `completed`, `failed` or `cancelled` event with the summary, and the stream closes. Each ' +
        'event has an `id`; a reconnect with `Last-Event-ID` resumes just after it, with nothing lost or ' +
        'repeated. A finished iteration replays its final event. Comment lines keep proxies from closing a ' +
        'quiet stream.',
      sse: true,
    },
  }),
} as const;
