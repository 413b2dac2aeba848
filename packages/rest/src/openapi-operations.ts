import { DEFAULT_INFERENCE_SETTINGS } from '@docevals/core';
import { z } from '@hono/zod-openapi';
import {
  AddDocumentBodySchema,
  CreateEvaluationBodySchema,
  CreateIterationBodySchema,
  CreateProcessorBodySchema,
  DeletedSchema,
  DistancesPathSchema,
  DocumentDistancesSchema,
  DocumentListSchema,
  DocumentPathSchema,
  EvaluationDocumentSchema,
  EvaluationListSchema,
  EvaluationPathSchema,
  EvaluationSchema,
  IterationIdPathSchema,
  IterationListSchema,
  IterationPathSchema,
  IterationSchema,
  IterationEventSchema,
  IterationSummarySchema,
  CompareQuerySchema,
  EvaluationComparisonSchema,
  ExportQuerySchema,
  ImportAnnotationsBodySchema,
  ImportAnnotationsResultSchema,
  IterationFieldsSchema,
  LeaderboardQuerySchema,
  LeaderboardSchema,
  MatrixQuerySchema,
  MatrixSchema,
  IterationViewSchema,
  GetIterationQuerySchema,
  GetEvaluationQuerySchema,
  EvaluationViewSchema,
  ListPredictionsQuerySchema,
  PredictionPageSchema,
  ModelListSchema,
  ListDocumentsQuerySchema,
  ListEvaluationsQuerySchema,
  ListIterationsQuerySchema,
  ListProcessorsQuerySchema,
  ProcessIterationBodySchema,
  ProcessorListSchema,
  ProcessorPathSchema,
  ProcessorSchema,
  SubmitDocumentBodySchema,
  SubmitDocumentFormSchema,
  SubmitResultSchema,
  UpdateDocumentBodySchema,
  UpdateEvaluationBodySchema,
  UpdateIterationBodySchema,
  UpdateProcessorBodySchema,
} from './openapi-schemas.js';

/**
 * What the OpenAPI document says of one operation beyond its endpoint (endpoints.ts): a description, the described
 * schemas of its parameters, body and answer, and an example of the request and of the answer. The examples are
 * what the real service answers (recorded from a run over memory storage with the `local-rules` model); a test
 * validates each one against its schema in the served document.
 */
export interface OperationDoc {
  description: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: z.ZodType;
  /** The same body as `multipart/form-data` (endpoints with `acceptsForm`). */
  formBody?: z.ZodType;
  /** The request body's example (operations with a body). */
  requestExample?: unknown;
  /** The 200 answer's example. */
  responseExample: unknown;
}

// The examples: one invoice, an iteration over it, a processor.

const JSON_SCHEMA_EXAMPLE = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string', description: 'The invoice number' },
    total: { type: 'number', description: 'The amount due' },
  },
};
const DATA_URL = 'data:text/plain;base64,SW52b2ljZSBudW1iZXI6IElOVi0xClRvdGFsOiA0Mgo=';
const DOCUMENT_ID = 'file_3d9063b06910dca5';
const SCHEMA_IDS = { schema_data_id: 'sch_data_id_1373b7115a9a4f7f', schema_id: 'sch_id_01ab4aee12eb753c' };
const SETTINGS = { ...DEFAULT_INFERENCE_SETTINGS, model: 'local-rules' };
const SIMILARITIES = { invoice_number: 0.75, total: 1 };

const DOCUMENT = {
  id: DOCUMENT_ID,
  mime_data: { filename: 'invoice-1.txt', url: DATA_URL },
  annotation: { invoice_number: 'INV-7', total: 42 },
  annotation_metadata: null,
};

const ITERATION = {
  id: 'eval_iter_kN2dnGkdCw_h0EgQE2JmC',
  updated_at: '2026-11-23T19:23:59.958Z',
  inference_settings: SETTINGS,
  json_schema: JSON_SCHEMA_EXAMPLE,
  predictions: [
    {
      document_id: DOCUMENT_ID,
      prediction: { invoice_number: 'INV-1', total: 42 },
      metadata: {
        extraction_id: 'extr_sYeFXe3GFXNC7oqmC32xC',
        likelihoods: null,
        consensus_details: null,
        api_cost: { value: 0, currency: 'USD' },
      },
    },
  ],
  metric_results: {
    item_metrics: [
      {
        id: DOCUMENT_ID,
        name: 'invoice-1.txt',
        similarity: 0.875,
        similarities: SIMILARITIES,
        flat_similarities: SIMILARITIES,
        aligned_similarity: 0.875,
        aligned_similarities: SIMILARITIES,
        aligned_flat_similarities: SIMILARITIES,
      },
    ],
    mean_similarity: 0.875,
    aligned_mean_similarity: 0.875,
    metric_type: 'levenshtein',
  },
  ...SCHEMA_IDS,
  status: 'completed',
  progress: { total: 1, succeeded: 1, failed: 0, pending: 0 },
  started_at: '2026-11-23T19:23:59.950Z',
  finished_at: '2026-11-23T19:23:59.958Z',
  error: null,
  usage: { input_tokens: 0, output_tokens: 0, cost: 0 },
};

const EVALUATION = {
  id: 'eval_invoices',
  updated_at: '2026-11-23T19:23:59.958Z',
  name: 'Invoices',
  project_id: 'proj_finance',
  documents: [DOCUMENT],
  iterations: [ITERATION],
  json_schema: JSON_SCHEMA_EXAMPLE,
  default_inference_settings: SETTINGS,
  ...SCHEMA_IDS,
};

const PROCESSOR = {
  object: 'processor',
  id: 'proc_invoice_reader',
  updated_at: '2026-11-23T19:23:59.964Z',
  name: 'Invoice reader',
  modality: 'text',
  image_resolution_dpi: 96,
  browser_canvas: 'A4',
  model: 'local-rules',
  json_schema: JSON_SCHEMA_EXAMPLE,
  temperature: 0,
  reasoning_effort: 'medium',
  n_consensus: 1,
  organization_id: 'org_acme',
  ...SCHEMA_IDS,
};

const PAGE_END = { before: null, after: null };

const ITERATION_SUMMARY = {
  id: ITERATION.id,
  updated_at: ITERATION.updated_at,
  created_at: '2026-11-23T19:23:59.950Z',
  inference_settings: SETTINGS,
  json_schema: JSON_SCHEMA_EXAMPLE,
  ...SCHEMA_IDS,
  status: 'completed',
  started_at: '2026-11-23T19:23:59.950Z',
  finished_at: '2026-11-23T19:23:59.958Z',
  error: null,
  progress: { total: 1, succeeded: 1, failed: 0, pending: 0 },
  usage: { input_tokens: 0, output_tokens: 0, cost: 0 },
  metric_results: { mean_similarity: 0.875, aligned_mean_similarity: 0.875, metric_type: 'levenshtein' },
};

const DOCUMENT_SUMMARY = { id: DOCUMENT_ID, filename: 'invoice-1.txt', mime_type: 'text/plain', size: 32 };

const EVALUATION_SUMMARY = {
  ...EVALUATION,
  document_count: 1,
  documents: [DOCUMENT_SUMMARY],
  iterations: [ITERATION_SUMMARY],
};

/** The documentation of every operation of {@link ENDPOINTS}, by operationId. */
export const OPERATION_DOCS: Readonly<Record<string, OperationDoc>> = {
  createEvaluation: {
    description:
      'Creates an evaluation from its documents (each with a ground-truth annotation) and a JSON schema. Document ' +
      'content arrives as base64 data URLs and is stored once per file (a document may instead name a stored file ' +
      'by `file_id`). Iterations run elsewhere may be imported with their predictions; their metrics are computed.',
    body: CreateEvaluationBodySchema,
    response: EvaluationSchema,
    requestExample: {
      name: 'Invoices',
      project_id: 'proj_finance',
      json_schema: JSON_SCHEMA_EXAMPLE,
      documents: [{ mime_data: { filename: 'invoice-1.txt', url: DATA_URL }, annotation: { invoice_number: 'INV-7', total: 42 } }],
      default_inference_settings: { model: 'local-rules', temperature: 0 },
    },
    responseExample: { ...EVALUATION, iterations: [] },
  },
  listEvaluations: {
    description:
      'Lists the organization\'s evaluations, newest first by default, a page at a time: pass the answer\'s ' +
      '`list_metadata.after` as `after` for the next page. Filters match exactly. Documents and iterations come as ' +
      'summaries (no file contents, no predictions); `expand=documents` gives whole documents, at most 10 a page.',
    query: ListEvaluationsQuerySchema,
    response: EvaluationListSchema,
    responseExample: { data: [EVALUATION_SUMMARY], list_metadata: PAGE_END },
  },
  getEvaluation: {
    description:
      'An evaluation with its documents, iterations, predictions and metrics (a large one is streamed). ' +
      '`view=summary`: the evaluation without its documents (their count, and the iterations as summaries), read ' +
      'at a cost that does not grow with the documents; page documents with `.../documents` and predictions with ' +
      '`.../iterations/{iteration_id}/predictions`.',
    params: EvaluationPathSchema,
    query: GetEvaluationQuerySchema,
    response: EvaluationViewSchema,
    responseExample: EVALUATION,
  },
  updateEvaluation: {
    description:
      'Changes the name, project_id, json_schema or default inference settings; omitted fields stay. Once the ' +
      'evaluation has iterations, a json_schema with another structure (another schema_data_id) is a 409: only ' +
      'prompts (descriptions, titles, `x-` fields) may change.',
    params: EvaluationPathSchema,
    body: UpdateEvaluationBodySchema,
    response: EvaluationSchema,
    requestExample: { name: 'Invoices 2026', project_id: 'proj_finance' },
    responseExample: { ...EVALUATION, name: 'Invoices 2026' },
  },
  deleteEvaluation: {
    description:
      'Deletes an evaluation with its iterations. Its files stay while another evaluation or processor of the ' +
      'organization refers to them.',
    params: EvaluationPathSchema,
    response: DeletedSchema,
    responseExample: { id: 'eval_invoices', deleted: true, success: true },
  },
  addDocument: {
    description:
      'Adds a document at the end of the evaluation. Existing iterations get an empty prediction for it, counted ' +
      'as pending until the iteration is re-run for it (`POST .../process` with `only_missing`).',
    params: EvaluationPathSchema,
    body: AddDocumentBodySchema,
    response: EvaluationDocumentSchema,
    requestExample: { mime_data: { filename: 'invoice-1.txt', url: DATA_URL }, annotation: { invoice_number: 'INV-7', total: 42 } },
    responseExample: DOCUMENT,
  },
  listDocuments: {
    description:
      'Lists an evaluation\'s documents in the evaluation\'s order, a page at a time, as summaries (id, filename, ' +
      'media type, size); `expand=documents` gives annotations and contents, at most 10 a page.',
    params: EvaluationPathSchema,
    query: ListDocumentsQuerySchema,
    response: DocumentListSchema,
    responseExample: { data: [DOCUMENT_SUMMARY], list_metadata: PAGE_END },
  },
  getDocument: {
    description: 'One document of an evaluation, with its content as a data URL and its annotation.',
    params: DocumentPathSchema,
    response: EvaluationDocumentSchema,
    responseExample: DOCUMENT,
  },
  updateDocumentAnnotation: {
    description: 'Replaces a document\'s annotation (its ground truth) and recomputes the metrics of every iteration.',
    params: DocumentPathSchema,
    body: UpdateDocumentBodySchema,
    response: EvaluationDocumentSchema,
    requestExample: { annotation: { invoice_number: 'INV-1', total: 42 } },
    responseExample: { ...DOCUMENT, annotation: { invoice_number: 'INV-1', total: 42 } },
  },
  deleteDocument: {
    description: 'Removes a document from the evaluation, with its predictions in every iteration (metrics recomputed).',
    params: DocumentPathSchema,
    response: DeletedSchema,
    responseExample: { id: DOCUMENT_ID, deleted: true, success: true },
  },
  listIterations: {
    description:
      'Every iteration of the evaluation, oldest first (no pagination); `model` keeps those of one model. ' +
      '`view=summary` leaves out predictions and item metrics: two small reads per iteration whatever its size.',
    params: EvaluationPathSchema,
    query: ListIterationsQuerySchema,
    response: IterationListSchema,
    responseExample: { data: [ITERATION] },
  },
  createIteration: {
    description:
      'Runs an extraction over every document of the evaluation with these settings (over the evaluation\'s ' +
      'defaults), scores each prediction against its annotation and stores the iteration. It answers when every ' +
      'document has run; a document whose extraction failed has `{}` and the reason in `metadata.error`.',
    params: EvaluationPathSchema,
    body: CreateIterationBodySchema,
    response: IterationSchema,
    requestExample: { inference_settings: { model: 'local-rules', n_consensus: 1 } },
    responseExample: ITERATION,
  },
  getIteration: {
    description:
      'An iteration with its settings, predictions and metrics (a large one is streamed). `view=summary`: its ' +
      'settings, status, progress, usage and means only; for the predictions of a large iteration, read ' +
      '`.../predictions` a page at a time.',
    params: IterationPathSchema,
    query: GetIterationQuerySchema,
    response: IterationViewSchema,
    responseExample: ITERATION,
  },
  listIterationPredictions: {
    description:
      'A page of the iteration\'s predictions with their metrics, in the evaluation\'s document order: pass ' +
      '`list_metadata.after` as `after` for the next page. A document without a prediction is `pending`. ' +
      '`document_ids=a,b`: those documents only, read by their ids, in that order (one document\'s prediction in ' +
      'one request, however large the evaluation).',
    params: IterationPathSchema,
    query: ListPredictionsQuerySchema,
    response: PredictionPageSchema,
    responseExample: {
      data: [
        {
          ...ITERATION.predictions[0]!,
          status: 'succeeded',
          metrics: ITERATION.metric_results.item_metrics[0]!,
        },
      ],
      list_metadata: PAGE_END,
    },
  },
  deleteIteration: {
    description: 'Deletes an iteration and its predictions.',
    params: IterationPathSchema,
    response: DeletedSchema,
    responseExample: { id: ITERATION.id, deleted: true, success: true },
  },
  processIteration: {
    description:
      'Re-runs the extraction of some or all of an iteration\'s documents with its settings, then recomputes its ' +
      'metrics: every document by default, the `document_ids` given, or with `only_missing` those without a prediction.',
    params: IterationPathSchema,
    body: ProcessIterationBodySchema,
    response: IterationSchema,
    requestExample: { only_missing: true },
    responseExample: ITERATION,
  },
  getIterationById: {
    description:
      'The same as `GET /v1/evals/{evaluation_id}/iterations/{iteration_id}`, with the iteration named by its id ' +
      'alone (the reference SDK\'s path).',
    params: IterationIdPathSchema,
    response: IterationSchema,
    responseExample: ITERATION,
  },
  updateIteration: {
    description:
      'Changes an iteration\'s inference settings (the given ones over its own) or its json_schema (same ' +
      'schema_data_id as the evaluation), then extracts every document again and recomputes the metrics. When ' +
      'nothing changes, the iteration is answered as it is and nothing runs. The body may be a whole Iteration, as ' +
      'the reference SDK sends it: only `inference_settings` and `json_schema` are read.',
    params: IterationIdPathSchema,
    body: UpdateIterationBodySchema,
    response: IterationSchema,
    requestExample: { inference_settings: { model: 'local-rules', temperature: 0.5 } },
    responseExample: { ...ITERATION, inference_settings: { ...SETTINGS, temperature: 0.5 } },
  },
  deleteIterationById: {
    description: 'The same as `DELETE /v1/evals/{evaluation_id}/iterations/{iteration_id}`, by the iteration\'s id alone.',
    params: IterationIdPathSchema,
    response: DeletedSchema,
    responseExample: { id: ITERATION.id, deleted: true, success: true },
  },
  computeDistances: {
    description:
      'How far one document\'s prediction is from its annotation in an iteration: 1 − similarity for every field ' +
      '(the tree of the item metric\'s `similarities`) and for the document. A 404 for a document the iteration has ' +
      'not run yet.',
    params: DistancesPathSchema,
    response: DocumentDistancesSchema,
    responseExample: { distances: { invoice_number: 0.25, total: 0 }, mean_distance: 0.125, metric_type: 'levenshtein' },
  },
  createProcessor: {
    description: 'Stores a named extraction configuration: a model, a JSON schema and inference settings.',
    body: CreateProcessorBodySchema,
    response: ProcessorSchema,
    requestExample: { name: 'Invoice reader', model: 'local-rules', modality: 'text', json_schema: JSON_SCHEMA_EXAMPLE },
    responseExample: PROCESSOR,
  },
  listProcessors: {
    description: 'Lists the organization\'s processors, newest first by default, a page at a time. Filters match exactly.',
    query: ListProcessorsQuerySchema,
    response: ProcessorListSchema,
    responseExample: { data: [PROCESSOR], list_metadata: PAGE_END },
  },
  getProcessor: {
    description: 'A processor\'s settings.',
    params: ProcessorPathSchema,
    response: ProcessorSchema,
    responseExample: PROCESSOR,
  },
  updateProcessor: {
    description: 'Changes the fields the body carries and keeps the others.',
    params: ProcessorPathSchema,
    body: UpdateProcessorBodySchema,
    response: ProcessorSchema,
    requestExample: { temperature: 0.2 },
    responseExample: { ...PROCESSOR, temperature: 0.2 },
  },
  deleteProcessor: {
    description: 'Deletes a processor.',
    params: ProcessorPathSchema,
    response: DeletedSchema,
    responseExample: { id: PROCESSOR.id, deleted: true, success: true },
  },
  submitToProcessor: {
    description:
      'Runs the processor\'s extraction on one document and answers the prediction with its metadata, and the same as ' +
      'the reference SDK\'s chat completion (`choices[0].message.parsed`, `usage`, `likelihoods`, `api_cost`). Nothing is ' +
      'stored. A failed extraction is a 502 `extractor_error`. The body is JSON, or `multipart/form-data` with the ' +
      'file as a `document` part (the reference SDK\'s form; its other fields, such as `temperature`, `seed` or ' +
      '`store`, are accepted and not used: the processor\'s stored settings apply). Both have the same size limit.',
    params: ProcessorPathSchema,
    body: SubmitDocumentBodySchema,
    formBody: SubmitDocumentFormSchema,
    response: SubmitResultSchema,
    requestExample: { document: { filename: 'invoice-1.txt', url: DATA_URL } },
    responseExample: {
      prediction: { invoice_number: 'INV-1', total: 42 },
      metadata: { ...ITERATION.predictions[0]!.metadata, extraction_id: 'extr_vivELhgihZr3W2-m_a6RX' },
      id: 'extr_vivELhgihZr3W2-m_a6RX',
      object: 'chat.completion',
      created: 1767225600,
      model: 'local-rules',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: '{"invoice_number":"INV-1","total":42}', parsed: { invoice_number: 'INV-1', total: 42 }, refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: null,
      likelihoods: null,
      api_cost: { value: 0, currency: 'USD' },
      extraction_id: 'extr_vivELhgihZr3W2-m_a6RX',
    },
  },
  listModels: {
    description:
      'The models this host\'s extractors serve, in routing order, with the modalities each reads. A name matched by ' +
      'a pattern (`gpt-*`) is served too; an iteration or processor naming a model nobody serves is a 422.',
    response: ModelListSchema,
    responseExample: { data: [{ id: 'local-rules', extractor: 'local-rules', pattern: false, modalities: ['text'] }] },
  },
  getIterationFields: {
    description:
      'Every leaf field of the iteration (list items collapsed to `*`): its mean similarity and aligned mean over the ' +
      'succeeded documents, and in how many documents it was exact, partial, missing or unexpected. Worst first.',
    params: IterationPathSchema,
    response: IterationFieldsSchema,
    responseExample: {
      iteration_id: ITERATION.id,
      documents: 1,
      fields: [
        { field: 'invoice_number', documents: 1, mean_similarity: 0.75, aligned_mean_similarity: 0.75, exact: 0, missing: 0, unexpected: 0, partial: 1 },
        { field: 'total', documents: 1, mean_similarity: 1, aligned_mean_similarity: 1, exact: 1, missing: 0, unexpected: 0, partial: 0 },
      ],
    },
  },
  exportIteration: {
    description:
      'One row per document and scored leaf path: document id, filename, status, path, annotation value, predicted ' +
      'value, similarity and aligned similarity. Streamed a page of documents at a time; `Content-Disposition` names ' +
      'the file. CSV is RFC 4180 quoted UTF-8; JSONL keeps the values\' JSON types.',
    params: IterationPathSchema,
    query: ExportQuerySchema,
    response: z.string(),
    responseExample:
      'document_id,filename,status,field,annotation,prediction,similarity,aligned_similarity\n' +
      `${DOCUMENT_ID},invoice-1.txt,succeeded,total,42,42,1,1\n`,
  },
  compareIterations: {
    description:
      'Compares two iterations of the evaluation over the documents that succeeded in both: per field, base and head ' +
      'means and their delta (most regressed first); per document, both similarities; the documents that regressed or ' +
      'improved by more than `threshold`; failed or pending documents listed apart, never compared as 0.',
    params: EvaluationPathSchema,
    query: CompareQuerySchema,
    response: EvaluationComparisonSchema,
    responseExample: {
      base_iteration_id: ITERATION.id,
      head_iteration_id: 'eval_iter_b7RbFy1m0c3aQx2Zp9LkT',
      threshold: 0.01,
      compared_documents: 1,
      mean_similarity: { base: 1, head: 0.875, delta: -0.125 },
      aligned_mean_similarity: { base: 1, head: 0.875, delta: -0.125 },
      cost: { base: null, head: null, delta: null },
      failures: { base: 0, head: 0, delta: 0 },
      fields: [{ field: 'total', documents: 1, base_mean: 1, head_mean: 0.75, delta: -0.25, base_aligned_mean: 1, head_aligned_mean: 0.75, aligned_delta: -0.25 }],
      moved_fields: [{ field: 'total', documents: 1, base_mean: 1, head_mean: 0.75, delta: -0.25, base_aligned_mean: 1, head_aligned_mean: 0.75, aligned_delta: -0.25 }],
      documents: [{ document_id: DOCUMENT_ID, filename: 'invoice-1.txt', base_similarity: 1, head_similarity: 0.875, delta: -0.125, base_aligned_similarity: 1, head_aligned_similarity: 0.875, aligned_delta: -0.125 }],
      regressed: [{ document_id: DOCUMENT_ID, filename: 'invoice-1.txt', base_similarity: 1, head_similarity: 0.875, delta: -0.125, base_aligned_similarity: 1, head_aligned_similarity: 0.875, aligned_delta: -0.125 }],
      improved: [],
      excluded: [],
    },
  },
  getLeaderboard: {
    description:
      'The evaluation\'s completed iterations ranked: model, the settings that differ between them, means over ' +
      'succeeded documents, failures, cost and duration. Read from summaries: a few small reads per iteration.',
    params: EvaluationPathSchema,
    query: LeaderboardQuerySchema,
    response: LeaderboardSchema,
    responseExample: {
      sort: 'mean_similarity',
      order: 'desc',
      differing_settings: [],
      rows: [
        {
          rank: 1,
          iteration_id: ITERATION.id,
          model: 'local-rules',
          settings: {},
          mean_similarity: 0.875,
          aligned_mean_similarity: 0.875,
          succeeded: 1,
          failed: 0,
          pending: 0,
          cost: null,
          duration_ms: 8,
          created_at: '2026-11-23T19:23:59.950Z',
        },
      ],
    },
  },
  getMatrix: {
    description:
      'One page of the evaluation\'s documents (its document order, `limit` up to 1,000, `after` a document id) with ' +
      'their similarity in every iteration, for a documents x iterations grid: the documents\' records and, per ' +
      'iteration, their predictions read by id; no file content and no prediction content. Similarities are the ' +
      'current metrics (an annotation edited since the run is accounted for).',
    params: EvaluationPathSchema,
    query: MatrixQuerySchema,
    response: MatrixSchema,
    responseExample: {
      iterations: [{ id: ITERATION.id, model: 'local-rules', status: 'completed' }],
      data: [{ document_id: DOCUMENT_ID, filename: 'invoice-1.txt', similarities: [0.875], statuses: ['succeeded'] }],
      list_metadata: { before: null, after: null },
    },
  },
  importAnnotations: {
    description:
      'Updates annotations from a file, row by row: JSONL of `{"document_id" | "filename", "annotation"}`, or CSV with ' +
      'a `document_id` or `filename` column and one column per leaf path (typed by the schema). A refused row (unknown ' +
      'document, wrong type) changes nothing; each updated document\'s metrics are refreshed in every iteration.',
    params: EvaluationPathSchema,
    body: ImportAnnotationsBodySchema,
    response: ImportAnnotationsResultSchema,
    requestExample: { format: 'csv', content: 'filename,invoice_number,total\ninvoice-1.txt,INV-7,42\n' },
    responseExample: {
      updated: 1,
      refused: 0,
      rows: [{ row: 1, document_id: DOCUMENT_ID, filename: 'invoice-1.txt', status: 'updated', issues: [] }],
    },
  },
  cancelIteration: {
    description:
      'Stops the iteration\'s run: no new extractor call starts, calls in flight are aborted, the predictions done so ' +
      'far are kept, and the status becomes `cancelled`. `process` with `only_missing` completes it later.',
    params: IterationPathSchema,
    response: IterationSummarySchema,
    responseExample: { ...ITERATION_SUMMARY, status: 'cancelled' },
  },
  streamIterationEvents: {
    description:
      'The run as Server-Sent Events: one `document` event per finished document, `progress` counts, then the final ' +
      '`completed`, `failed` or `cancelled` event with the summary, and the stream closes. Each event has an `id`; a ' +
      'reconnect with `Last-Event-ID` resumes just after it, with nothing lost or repeated. A finished iteration ' +
      'replays its final event. Comment lines keep proxies from closing a quiet stream.',
    params: IterationPathSchema,
    response: IterationEventSchema,
    responseExample: { id: 'job_1.file_3d9063b06910dca5', type: 'document', data: { document_id: DOCUMENT_ID, similarity: 0.875, error: null } },
  },
};
