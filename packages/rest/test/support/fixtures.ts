/** A small text document the offline `local-rules` model reads: "Invoice number: INV-1 / Total: 42". */
export const INVOICE_TEXT = 'Invoice number: INV-1\nTotal: 42\n';
export const INVOICE_URL = `data:text/plain;base64,${Buffer.from(INVOICE_TEXT).toString('base64')}`;

export const INVOICE_SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string', description: 'The invoice number' },
    total: { type: 'number', description: 'The amount due' },
  },
};

export const INVOICE_ANNOTATION = { invoice_number: 'INV-1', total: 42 };

/** The body of docs/spec/interface.md 4.1 for one invoice. */
export function evaluationBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Invoices',
    project_id: 'proj_1',
    json_schema: INVOICE_SCHEMA,
    documents: [
      { mime_data: { filename: 'invoice-1.txt', url: INVOICE_URL }, annotation: INVOICE_ANNOTATION },
    ],
    iterations: [],
    default_inference_settings: { model: 'local-rules', temperature: 0 },
    ...overrides,
  };
}

/**
 * The body of docs/spec/interface.md 4.1 for `count` one-line text documents (`d0`, `d1`...), each annotated
 * `{ total: 1 }`, run by `model`: an evaluation whose iteration makes many small events.
 */
export function totalsEvaluationBody(name: string, count: number, model: string) {
  return {
    name,
    json_schema: { type: 'object', properties: { total: { type: 'number' } } },
    documents: Array.from({ length: count }, (_, i) => ({
      mime_data: { filename: `d${i}.txt`, url: `data:text/plain;base64,${Buffer.from(`d${i}`).toString('base64')}` },
      annotation: { total: 1 },
    })),
    default_inference_settings: { model },
  };
}

/** The body of docs/spec/interface.md 4.6. */
export function processorBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Invoice reader',
    model: 'local-rules',
    modality: 'text',
    json_schema: INVOICE_SCHEMA,
    image_resolution_dpi: 96,
    browser_canvas: 'A4',
    temperature: 0,
    reasoning_effort: 'low',
    n_consensus: 1,
    ...overrides,
  };
}

/** JSON nested `depth` levels deep, built as text: nothing recurses to make it. */
export function deepJson(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
}
