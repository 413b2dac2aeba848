import { z } from 'zod';
import * as schemas from '../schemas/index.js';
import { operation } from './define.js';

/** Evaluations, and the analyses across their iterations (compare, leaderboard, matrix). */
export const evaluationOperations = {
  'evals.create': operation({
    procedure: 'mutation',
    input: schemas.createEvaluationInputSchema,
    output: schemas.evaluationSchema,
    call: (d, org, input) => d.evals.create(org, input),
    rest: {
      method: 'post',
      path: '/v1/evals',
      operationId: 'createEvaluation',
      tag: 'Evaluations',
      summary: 'Create an evaluation (stores any document that has no file_id yet)',
      description:
        'Creates an evaluation from its documents (each with a ground-truth annotation) and a JSON schema. ' +
        'Document content arrives as base64 data URLs and is stored once per file (a document may instead ' +
        'name a stored file by `file_id`). Iterations run elsewhere may be imported with their predictions; ' +
        'their metrics are computed.',
      input: 'body',
    },
  }),
  'evals.get': operation({
    procedure: 'query',
    input: schemas.evaluationRefInputSchema,
    output: schemas.evaluationSchema,
    call: (d, org, input) => d.evals.get(org, { ...input, view: 'full' }),
  }),
  /** The evaluation without its documents: `document_count`, iterations as summaries. */
  'evals.getSummary': operation({
    procedure: 'query',
    input: schemas.evaluationRefInputSchema,
    output: schemas.evaluationOverviewSchema,
    call: (d, org, input) => d.evals.get(org, { ...input, view: 'summary' }),
  }),
  /** `view` in the input: the whole evaluation or its summary. */
  'evals.getAny': operation({
    input: schemas.getEvaluationInputSchema,
    output: z.union([schemas.evaluationSchema, schemas.evaluationOverviewSchema]),
    call: (d, org, input) => d.evals.get(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}',
      operationId: 'getEvaluation',
      tag: 'Evaluations',
      summary: 'Get an evaluation; `view=summary` for it without its documents (their count, iterations as summaries)',
      description:
        'An evaluation with its documents, iterations, predictions and metrics (a large one is streamed). ' +
        '`view=summary`: the evaluation without its documents (their count, and the iterations as summaries), ' +
        'read at a cost that does not grow with the documents; page documents with `.../documents` and ' +
        'predictions with `.../iterations/{iteration_id}/predictions`.',
      input: 'query',
    },
  }),
  'evals.list': operation({
    procedure: 'query',
    input: schemas.listEvaluationsInputSchema.optional(),
    output: schemas.listResultSchema(schemas.evaluationSummarySchema),
    call: (d, org, input) => d.evals.list(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals',
      operationId: 'listEvaluations',
      tag: 'Evaluations',
      summary: 'List evaluations (cursor pagination): summaries; `expand=documents` for whole documents',
      description:
        'Lists the organization\'s evaluations, newest first by default, a page at a time: pass the answer\'s ' +
        '`list_metadata.after` as `after` for the next page. Filters match exactly. Documents and iterations ' +
        'come as summaries (no file contents, no predictions); `expand=documents` gives whole documents, at ' +
        'most 10 a page.',
      input: 'query',
    },
  }),
  'evals.update': operation({
    procedure: 'mutation',
    input: schemas.updateEvaluationInputSchema,
    output: schemas.evaluationSchema,
    call: (d, org, input) => d.evals.update(org, input),
    rest: {
      method: 'patch',
      path: '/v1/evals/{evaluation_id}',
      operationId: 'updateEvaluation',
      tag: 'Evaluations',
      summary: 'Update an evaluation (omitted fields stay)',
      description:
        'Changes the name, project_id, json_schema or default inference settings; omitted fields stay. Once ' +
        'the evaluation has iterations, a json_schema with another structure (another schema_data_id) is a ' +
        '409: only prompts (descriptions, titles, `x-` fields) may change.',
      input: 'body',
    },
  }),
  'evals.delete': operation({
    procedure: 'mutation',
    input: schemas.evaluationRefInputSchema,
    output: schemas.deletedSchema,
    call: (d, org, input) => d.evals.delete(org, input),
    rest: {
      method: 'delete',
      path: '/v1/evals/{evaluation_id}',
      operationId: 'deleteEvaluation',
      tag: 'Evaluations',
      summary: 'Delete an evaluation',
      description:
        'Deletes an evaluation with its iterations. Its files stay while another evaluation or processor of ' +
        'the organization refers to them.',
    },
  }),
  'evals.duplicate': operation({
    procedure: 'mutation',
    input: schemas.duplicateEvaluationInputSchema,
    output: schemas.evaluationOverviewSchema,
    call: (d, org, input) => d.evals.duplicate(org, input),
    rest: {
      method: 'post',
      path: '/v1/evals/{evaluation_id}/duplicate',
      operationId: 'duplicateEvaluation',
      tag: 'Evaluations',
      summary: 'Copy an evaluation with its documents and ground truth, not its iterations',
      description:
        'Creates an evaluation under a new id with the same json_schema, project_id, default inference settings ' +
        'and documents (the same stored files; annotations and their metadata copied), and no iterations: to run ' +
        'another experiment on the same ground truth, or to edit annotations without touching the original. ' +
        '`name` names the copy (default: the name followed by ` (copy)`). Answers the copy as `view=summary` does.',
      input: 'body',
      bodyOptional: true,
    },
  }),
  'evals.loadSample': operation({
    procedure: 'mutation',
    input: schemas.loadSampleInputSchema,
    output: schemas.evaluationOverviewSchema,
    call: (d, org, input) => d.evals.loadSample(org, input),
    rest: {
      method: 'post',
      path: '/v1/evals/sample',
      operationId: 'loadSampleEvaluation',
      tag: 'Evaluations',
      summary: 'Create the server\'s sample evaluation, to try every view without a model',
      description:
        'Creates, for the caller\'s organization, the sample evaluation the host offers: on the standalone server a ' +
        'few dozen generated invoices, receipts and forms (text, Markdown, HTML, PDF and PNG) with their ground truth ' +
        'and two imported, named iterations (one good, one with realistic errors). Each call creates a new evaluation. ' +
        'Answers it as `view=summary` does; 501 `not_configured` when the host offers no sample.',
      input: 'body',
      bodyOptional: true,
    },
  }),
  'evals.compare': operation({
    procedure: 'query',
    input: schemas.compareInputSchema,
    output: schemas.evaluationComparisonSchema,
    call: (d, org, input) => d.evals.compare(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/compare',
      operationId: 'compareIterations',
      tag: 'Evaluations',
      summary: 'Compare two iterations (`base`, `head`): field and document deltas, regressed and improved documents',
      description:
        'Compares two iterations of the evaluation over the labeled documents that finished in both, a failed ' +
        'one counting 0: per field, base and head means and their delta (most regressed first), with a paired ' +
        'delta and its 95% bootstrap interval (2,000 resamples, seeded) and `significant`; the same for the ' +
        'mean; per document, both similarities; the documents that regressed or improved by more than ' +
        '`threshold`; unlabeled or pending documents listed apart.',
      input: 'query',
    },
  }),
  'evals.matrix': operation({
    procedure: 'query',
    input: schemas.matrixInputSchema,
    output: schemas.matrixSchema,
    call: (d, org, input) => d.evals.matrix(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/matrix',
      operationId: 'getMatrix',
      tag: 'Evaluations',
      summary: 'A page of the evaluation\'s documents with their similarity in every iteration (documents x iterations)',
      description:
        'One page of the evaluation\'s documents (its document order, `limit` up to 1,000, `after` a document ' +
        'id) with their similarity in every iteration, for a documents x iterations grid: the documents\' ' +
        'records and, per iteration, their predictions read by id; no file content and no prediction content. ' +
        'Similarities are the current metrics (an annotation edited since the run is accounted for).',
      input: 'query',
    },
  }),
  'evals.leaderboard': operation({
    procedure: 'query',
    input: schemas.leaderboardInputSchema,
    output: schemas.leaderboardSchema,
    call: (d, org, input) => d.evals.leaderboard(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/leaderboard',
      operationId: 'getLeaderboard',
      tag: 'Evaluations',
      summary: 'The evaluation\'s completed iterations ranked (`sort`, `order`), with the settings that differ',
      description:
        'The evaluation\'s completed iterations ranked: model, the settings that differ between them, the ' +
        'failure-counting mean over labeled documents (the default order), the mean over succeeded ones, ' +
        'coverage, outcome counts, cost and duration. Read from summaries: a few small reads per iteration.',
      input: 'query',
    },
  }),
} as const;
