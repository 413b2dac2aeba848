import { DEFAULT_INFERENCE_SETTINGS } from '@docevals/core';

// The examples: one invoice, an iteration over it, a processor.

export const JSON_SCHEMA_EXAMPLE = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string', description: 'The invoice number' },
    total: { type: 'number', description: 'The amount due' },
  },
};
export const DATA_URL = 'data:text/plain;base64,SW52b2ljZSBudW1iZXI6IElOVi0xClRvdGFsOiA0Mgo=';
export const DOCUMENT_ID = 'file_3d9063b06910dca5';
export const SCHEMA_IDS = { schema_data_id: 'sch_data_id_1373b7115a9a4f7f', schema_id: 'sch_id_01ab4aee12eb753c' };
export const SETTINGS = { ...DEFAULT_INFERENCE_SETTINGS, model: 'local-rules' };
export const SIMILARITIES = { invoice_number: 0.75, total: 1 };

export const DOCUMENT = {
  id: DOCUMENT_ID,
  mime_data: { filename: 'invoice-1.txt', url: DATA_URL },
  annotation: { invoice_number: 'INV-7', total: 42 },
  annotation_metadata: null,
};

/** The figures of an iteration with one labeled document, read and exact but for one field. */
export const HONEST_FIGURES = {
  mean_similarity: 0.875,
  aligned_mean_similarity: 0.875,
  metric_type: 'levenshtein',
  succeeded_mean_similarity: 0.875,
  succeeded_aligned_mean_similarity: 0.875,
  coverage: 1,
  schema_valid_rate: 1,
  counts: { documents: 1, succeeded: 1, failed: 0, unlabeled: 0, pending: 0 },
  partial: false,
};

export const ITERATION = {
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
    ...HONEST_FIGURES,
  },
  ...SCHEMA_IDS,
  status: 'completed',
  progress: { total: 1, succeeded: 1, failed: 0, pending: 0 },
  started_at: '2026-11-23T19:23:59.950Z',
  finished_at: '2026-11-23T19:23:59.958Z',
  error: null,
  usage: { input_tokens: 0, output_tokens: 0, cost: 0 },
  name: null,
  description: null,
  tags: [],
};

export const EVALUATION = {
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

export const PROCESSOR = {
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

export const PAGE_END = { before: null, after: null };

export const ITERATION_SUMMARY = {
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
  metric_results: HONEST_FIGURES,
  name: null,
  description: null,
  tags: [],
};

export const DOCUMENT_SUMMARY = {
  id: DOCUMENT_ID,
  filename: 'invoice-1.txt',
  mime_type: 'text/plain',
  size: 32,
  mime_data: { filename: 'invoice-1.txt', url: `/v1/evals/eval_invoices/documents/${DOCUMENT_ID}/content` },
};

export const EVALUATION_SUMMARY = {
  ...EVALUATION,
  document_count: 1,
  unlabeled_count: 0,
  documents: [DOCUMENT_SUMMARY],
  iterations: [ITERATION_SUMMARY],
};
