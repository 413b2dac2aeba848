import { z } from '@hono/zod-openapi';
import {
  JSON_SCHEMA_EXAMPLE,
  DATA_URL,
  DOCUMENT_ID,
  SETTINGS,
  DOCUMENT,
  ITERATION,
  EVALUATION,
  PROCESSOR,
  PAGE_END,
  ITERATION_SUMMARY,
  DOCUMENT_SUMMARY,
  EVALUATION_SUMMARY,
} from './openapi-examples.js';
import {
  DistancesPathSchema,
  DocumentListSchema,
  EvaluationListSchema,
  EvaluationViewSchema,
  IterationIdPathSchema,
  IterationListSchema,
  IterationSchema,
  IterationViewSchema,
  ListPredictionsQuerySchema,
  PredictionPageSchema,
  ProcessorListSchema,
} from './openapi-schemas.js';
import {
  AddDocumentBodySchema,
  CreateEvaluationBodySchema,
  CreateExternalApiKeyBodySchema,
  CreateIterationBodySchema,
  CreateProcessorBodySchema,
  CustomEndpointDeletedSchema,
  ExternalApiKeyListSchema,
  ImportAnnotationsBodySchema,
  IterationEventSchema,
  ProcessIterationBodySchema,
  SetCustomEndpointBodySchema,
  SubmitDocumentBodySchema,
  SubmitDocumentFormSchema,
  UpdateDocumentBodySchema,
  UpdateEvaluationBodySchema,
  UpdateIterationBodySchema,
  UpdateIterationMetadataBodySchema,
  UpdateProcessorBodySchema,
} from './openapi-bodies.js';

/**
 * What the OpenAPI document shows of one operation beyond its row in the core (route, summary, description): the
 * described schemas of its parameters, body and answer, and an example of the request and of the answer. All
 * optional: without them the document shows the operation's own schemas. The examples are what the real service
 * answers (recorded from a run over memory storage with the `local-rules` model); a test validates each one against
 * its schema in the served document.
 */
export interface OperationDoc {
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response?: z.ZodType;
  /** The same body as `multipart/form-data` (endpoints with `acceptsForm`). */
  formBody?: z.ZodType;
  /** The request body's example (operations with a body). */
  requestExample?: unknown;
  /** The 200 answer's example. */
  responseExample?: unknown;
}

/** Described schemas and examples of the operations, by operationId (optional: see {@link OperationDoc}). */
export const OPERATION_DOCS: Readonly<Partial<Record<string, OperationDoc>>> = {
  createEvaluation: {
    body: CreateEvaluationBodySchema,
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
    response: EvaluationListSchema,
    responseExample: { data: [EVALUATION_SUMMARY], list_metadata: PAGE_END },
  },
  getEvaluation: {
    response: EvaluationViewSchema,
    responseExample: EVALUATION,
  },
  updateEvaluation: {
    body: UpdateEvaluationBodySchema,
    requestExample: { name: 'Invoices 2026', project_id: 'proj_finance' },
    responseExample: { ...EVALUATION, name: 'Invoices 2026' },
  },
  deleteEvaluation: {
    responseExample: { id: 'eval_invoices', deleted: true, success: true },
  },
  addDocument: {
    body: AddDocumentBodySchema,
    requestExample: { mime_data: { filename: 'invoice-1.txt', url: DATA_URL }, annotation: { invoice_number: 'INV-7', total: 42 } },
    responseExample: DOCUMENT,
  },
  listDocuments: {
    response: DocumentListSchema,
    responseExample: { data: [DOCUMENT_SUMMARY], list_metadata: PAGE_END },
  },
  getDocument: {
    responseExample: DOCUMENT,
  },
  updateDocumentAnnotation: {
    body: UpdateDocumentBodySchema,
    requestExample: { annotation: { invoice_number: 'INV-1', total: 42 } },
    responseExample: { ...DOCUMENT, annotation: { invoice_number: 'INV-1', total: 42 } },
  },
  deleteDocument: {
    responseExample: { id: DOCUMENT_ID, deleted: true, success: true },
  },
  listIterations: {
    response: IterationListSchema,
    responseExample: { data: [ITERATION] },
  },
  createIteration: {
    body: CreateIterationBodySchema,
    response: IterationSchema,
    requestExample: { inference_settings: { model: 'local-rules', n_consensus: 1 } },
    responseExample: ITERATION,
  },
  getIteration: {
    response: IterationViewSchema,
    responseExample: ITERATION,
  },
  listIterationPredictions: {
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
    responseExample: { id: ITERATION.id, deleted: true, success: true },
  },
  processIteration: {
    body: ProcessIterationBodySchema,
    response: IterationSchema,
    requestExample: { only_missing: true },
    responseExample: ITERATION,
  },
  getIterationById: {
    params: IterationIdPathSchema,
    responseExample: ITERATION,
  },
  updateIteration: {
    params: IterationIdPathSchema,
    body: UpdateIterationBodySchema,
    requestExample: { inference_settings: { model: 'local-rules', temperature: 0.5 } },
    responseExample: { ...ITERATION, inference_settings: { ...SETTINGS, temperature: 0.5 } },
  },
  updateIterationMetadata: {
    body: UpdateIterationMetadataBodySchema,
    requestExample: { name: 'local-rules baseline', tags: ['baseline'] },
    responseExample: { ...ITERATION_SUMMARY, name: 'local-rules baseline', tags: ['baseline'] },
  },
  deleteIterationById: {
    params: IterationIdPathSchema,
    responseExample: { id: ITERATION.id, deleted: true, success: true },
  },
  computeDistances: {
    params: DistancesPathSchema,
    responseExample: { distances: { invoice_number: 0.25, total: 0 }, mean_distance: 0.125, metric_type: 'levenshtein' },
  },
  createProcessor: {
    body: CreateProcessorBodySchema,
    requestExample: { name: 'Invoice reader', model: 'local-rules', modality: 'text', json_schema: JSON_SCHEMA_EXAMPLE },
    responseExample: PROCESSOR,
  },
  listProcessors: {
    response: ProcessorListSchema,
    responseExample: { data: [PROCESSOR], list_metadata: PAGE_END },
  },
  getProcessor: {
    responseExample: PROCESSOR,
  },
  updateProcessor: {
    body: UpdateProcessorBodySchema,
    requestExample: { temperature: 0.2 },
    responseExample: { ...PROCESSOR, temperature: 0.2 },
  },
  deleteProcessor: {
    responseExample: { id: PROCESSOR.id, deleted: true, success: true },
  },
  submitToProcessor: {
    body: SubmitDocumentBodySchema,
    formBody: SubmitDocumentFormSchema,
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
    responseExample: {
      data: [
        { id: 'local-rules', extractor: 'local-rules', pattern: false, modalities: ['text'], provider: null },
        { id: 'claude-sonnet-4-5', extractor: 'providers', pattern: false, modalities: ['text', 'image', 'native', 'image+text'], provider: 'Anthropic' },
        { id: 'claude-*', extractor: 'providers', pattern: true, modalities: ['text', 'image', 'native', 'image+text'], provider: 'Anthropic' },
      ],
    },
  },
  createExternalApiKey: {
    body: CreateExternalApiKeyBodySchema,
    requestExample: { provider: 'Anthropic', api_key: 'sk-ant-...' },
    responseExample: { provider: 'Anthropic', is_configured: true, last_updated: '2026-11-25T21:00:00.000Z' },
  },
  getExternalApiKey: {
    responseExample: { provider: 'Anthropic', is_configured: true, last_updated: '2026-11-25T21:00:00.000Z' },
  },
  listExternalApiKeys: {
    response: ExternalApiKeyListSchema,
    responseExample: [
      { provider: 'OpenAI', is_configured: false, last_updated: null },
      { provider: 'Anthropic', is_configured: true, last_updated: '2026-11-25T21:00:00.000Z' },
      { provider: 'Gemini', is_configured: false, last_updated: null },
      { provider: 'xAI', is_configured: false, last_updated: null },
    ],
  },
  deleteExternalApiKey: { responseExample: { provider: 'Anthropic', deleted: true, success: true } },
  setCustomEndpoint: {
    body: SetCustomEndpointBodySchema,
    requestExample: { base_url: 'http://localhost:11434/v1', models: ['llama3.1'] },
    responseExample: { is_configured: true, base_url: 'http://localhost:11434/v1', models: ['llama3.1'], has_api_key: false, last_updated: '2026-11-25T21:00:00.000Z' },
  },
  getCustomEndpoint: {
    responseExample: { is_configured: true, base_url: 'http://localhost:11434/v1', models: ['llama3.1'], has_api_key: false, last_updated: '2026-11-25T21:00:00.000Z' },
  },
  deleteCustomEndpoint: { response: CustomEndpointDeletedSchema, responseExample: { deleted: true, success: true } },
  getDocumentContent: { response: z.string(), responseExample: 'Invoice number: INV-1\nTotal: 42\n' },
  getIterationFields: {
    responseExample: {
      iteration_id: ITERATION.id,
      documents: 1,
      counts: { succeeded: 1, failed: 0, unlabeled: 0, pending: 0 },
      calibration: null,
      fields: [
        { field: 'invoice_number', documents: 1, mean_similarity: 0.75, aligned_mean_similarity: 0.75, exact: 0, missing: 0, unexpected: 0, partial: 1, failed: 0, calibration: null },
        { field: 'total', documents: 1, mean_similarity: 1, aligned_mean_similarity: 1, exact: 1, missing: 0, unexpected: 0, partial: 0, failed: 0, calibration: null },
      ],
    },
  },
  exportIteration: {
    response: z.string(),
    responseExample:
      'document_id,filename,status,field,annotation,prediction,similarity,aligned_similarity,outcome\n' +
      `${DOCUMENT_ID},invoice-1.txt,succeeded,total,42,42,1,1,succeeded\n`,
  },
  compareIterations: {
    responseExample: {
      base_iteration_id: ITERATION.id,
      head_iteration_id: 'eval_iter_b7RbFy1m0c3aQx2Zp9LkT',
      threshold: 0.01,
      compared_documents: 1,
      base_counts: { succeeded: 1, failed: 0, unlabeled: 0, pending: 0 },
      head_counts: { succeeded: 1, failed: 0, unlabeled: 0, pending: 0 },
      mean_similarity: { base: 1, head: 0.875, delta: -0.125, paired: { n: 1, delta: -0.125, ci_low: -0.125, ci_high: -0.125, significant: true } },
      aligned_mean_similarity: { base: 1, head: 0.875, delta: -0.125, paired: { n: 1, delta: -0.125, ci_low: -0.125, ci_high: -0.125, significant: true } },
      cost: { base: null, head: null, delta: null },
      failures: { base: 0, head: 0, delta: 0 },
      fields: [{ field: 'total', documents: 1, base_mean: 1, head_mean: 0.75, delta: -0.25, base_aligned_mean: 1, head_aligned_mean: 0.75, aligned_delta: -0.25, paired: { n: 1, delta: -0.25, ci_low: -0.25, ci_high: -0.25, significant: true } }],
      moved_fields: [{ field: 'total', documents: 1, base_mean: 1, head_mean: 0.75, delta: -0.25, base_aligned_mean: 1, head_aligned_mean: 0.75, aligned_delta: -0.25, paired: { n: 1, delta: -0.25, ci_low: -0.25, ci_high: -0.25, significant: true } }],
      documents: [{ document_id: DOCUMENT_ID, filename: 'invoice-1.txt', base_similarity: 1, head_similarity: 0.875, delta: -0.125, base_aligned_similarity: 1, head_aligned_similarity: 0.875, aligned_delta: -0.125 }],
      regressed: [{ document_id: DOCUMENT_ID, filename: 'invoice-1.txt', base_similarity: 1, head_similarity: 0.875, delta: -0.125, base_aligned_similarity: 1, head_aligned_similarity: 0.875, aligned_delta: -0.125 }],
      improved: [],
      excluded: [],
    },
  },
  getLeaderboard: {
    responseExample: {
      sort: 'mean_similarity',
      order: 'desc',
      differing_settings: [],
      rows: [
        {
          rank: 1,
          iteration_id: ITERATION.id,
          name: 'Baseline',
          model: 'local-rules',
          settings: {},
          mean_similarity: 0.875,
          aligned_mean_similarity: 0.875,
          succeeded_mean_similarity: 0.875,
          coverage: 1,
          succeeded: 1,
          failed: 0,
          pending: 0,
          unlabeled: 0,
          partial: false,
          cost: null,
          duration_ms: 8,
          created_at: '2026-11-23T19:23:59.950Z',
        },
      ],
    },
  },
  getMatrix: {
    responseExample: {
      iterations: [{ id: ITERATION.id, name: 'Baseline', model: 'local-rules', status: 'completed' }],
      data: [{ document_id: DOCUMENT_ID, filename: 'invoice-1.txt', similarities: [0.875], statuses: ['succeeded'], labeled: true }],
      list_metadata: { before: null, after: null },
    },
  },
  importAnnotations: {
    body: ImportAnnotationsBodySchema,
    requestExample: { format: 'csv', content: 'filename,invoice_number,total\ninvoice-1.txt,INV-7,42\n' },
    responseExample: {
      dry_run: false,
      updated: 1,
      refused: 0,
      rows: [{ row: 1, document_id: DOCUMENT_ID, filename: 'invoice-1.txt', status: 'updated', issues: [] }],
    },
  },
  cancelIteration: {
    responseExample: { ...ITERATION_SUMMARY, status: 'cancelled' },
  },
  streamIterationEvents: {
    response: IterationEventSchema,
    responseExample: { id: 'job_1.file_3d9063b06910dca5', type: 'document', data: { document_id: DOCUMENT_ID, similarity: 0.875, error: null } },
  },
};
