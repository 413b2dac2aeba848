import { Buffer } from 'node:buffer';
import { memoryStorage } from '../support/memory-storage.js';
import { createDocevals, ExtractionFailure, type CreateEvaluationInput, type Docevals, type Extractor, type DocevalsOptions } from '@docevals/core';

export const ORG = 'org_a';
export const OTHER_ORG = 'org_b';

export const dataUrl = (text: string, mime = 'application/json') =>
  `data:${mime};base64,${Buffer.from(text).toString('base64')}`;

export const invoiceSchema = {
  type: 'object',
  properties: {
    vendor: { type: 'string', description: 'Who issued the invoice' },
    total: { type: 'number' },
  },
} as const;

/**
 * A real extractor for tests: the documents are JSON files, and "extraction" reads them. Documents whose JSON has
 * `"fail": true` fail (not retryably). `gate` lets a test hold extractions until it releases them.
 */
export function jsonFileExtractor(options: { gate?: Promise<void>; calls?: string[] } = {}): Extractor {
  return {
    name: 'json-file',
    models: ['json-file', 'json-file-*'],
    async extract({ document }) {
      options.calls?.push(document.filename);
      if (options.gate) await options.gate;
      const data = JSON.parse(Buffer.from(document.bytes).toString('utf8'));
      if (data.fail) throw new ExtractionFailure('the document asked to fail', { retryable: false });
      return { data };
    },
  };
}

export function makeService(overrides: Partial<DocevalsOptions> = {}) {
  return createDocevals({
    storage: memoryStorage(),
    extractors: [jsonFileExtractor()],
    extraction: { backoffBaseMs: 1, backoffMaxMs: 2 },
    ...overrides,
  });
}

/**
 * Creates an evaluation of {@link invoiceSchema} in {@link ORG} whose iterations default to the `json-file` model
 * (it reads each document back as its prediction); `fields` add the documents and override the rest.
 */
export function createInvoices(docevals: Docevals, fields: Partial<CreateEvaluationInput>) {
  return docevals.evals.create(ORG, {
    name: 'Invoices',
    json_schema: invoiceSchema,
    default_inference_settings: { model: 'json-file' },
    ...fields,
  });
}

export function invoiceDocument(filename: string, content: object, annotation: Record<string, unknown>) {
  return { mime_data: { filename, url: dataUrl(JSON.stringify(content)) }, annotation };
}

/** Section-3 similarity of two normalized strings, for expectations written by hand. */
export const lev = (distance: number, longest: number) => 1 - distance / longest;
