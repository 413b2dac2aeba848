// The large evaluation of the performance spec: 1,000 documents x 5 iterations, created over REST in one request
// (documents with their ground truth, and 5 iterations imported with their predictions: no model runs). Each
// iteration reads a different share of the documents wrong, so the matrix's cells differ from row to row and from
// column to column. `pnpm bench web-matrix` seeds 10,000 x 10 the same way (`seedLargeEvaluation(url, key, size)`).
import { documentInput, invoice } from './support.js';
import { invoiceSchema, wrongCurrency, type Invoice } from './fake-provider.js';

export const LARGE = { documents: 1_000, iterations: 5 } as const;

/** The size of a seeded evaluation: documents, and iterations imported with a prediction for each. */
export interface Size {
  documents: number;
  iterations: number;
}

/** What the performance spec needs to know about the seeded evaluation (passed as JSON in E2E_LARGE_EVAL). */
export interface LargeEvaluation {
  id: string;
  name: string;
  /** The first document's filename and its similarity in each iteration, in iteration order. */
  first: { filename: string; similarities: number[] };
  iterations: { id: string; model: string }[];
}

/**
 * Iteration k reads the currency wrong on documents where i % 5 < k (k mod 5: ten iterations repeat the pattern),
 * the vendor wrong where i % 7 === k, and from the sixth iteration on the total wrong where i % 11 === k - 5.
 */
function prediction(i: number, k: number): Invoice {
  const right = invoice(i);
  return {
    vendor: i % 7 === k ? `${right.vendor} Ltd` : right.vendor,
    total: k >= 5 && i % 11 === k - 5 ? right.total + 1 : right.total,
    currency: i % 5 < k % 5 ? wrongCurrency(right.currency) : right.currency,
  };
}

export async function seedLargeEvaluation(baseURL: string, apiKey: string, size: Size = LARGE): Promise<LargeEvaluation> {
  const documents = Array.from({ length: size.documents }, (_, i) => documentInput(i));
  const iterations = Array.from({ length: size.iterations }, (_, k) => ({
    inference_settings: { model: `seeded-model-${k + 1}` },
    predictions: documents.map((_, i) => ({ prediction: prediction(i, k) })),
  }));
  const name = `Seeded ${size.documents} x ${size.iterations}`;
  const response = await fetch(new URL('/v1/evals', baseURL), {
    method: 'POST',
    headers: { 'api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name, json_schema: invoiceSchema, documents, iterations }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`seeding the large evaluation: ${response.status} ${text.slice(0, 500)}`);
  const created = JSON.parse(text);
  return {
    id: created.id,
    name,
    first: {
      filename: created.documents[0].filename ?? created.documents[0].mime_data?.filename,
      similarities: created.iterations.map((it: any) => it.metric_results.item_metrics[0].similarity),
    },
    iterations: created.iterations.map((it: any) => ({ id: it.id, model: it.inference_settings.model })),
  };
}
