import { Buffer } from 'node:buffer';
import { createDocevals, type MetricResults } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';

const text = (s: string) => `data:text/plain;base64,${Buffer.from(s).toString('base64')}`;

/**
 * The whole flow in-process: an evaluation of two text invoices, an iteration with the offline `local-rules`
 * model, an annotation fix, and the metrics after it.
 */
export async function runExample(log: (line: string) => void = console.log): Promise<{
  before: MetricResults;
  after: MetricResults;
}> {
  const docevals = createDocevals({ storage: memoryStorage() });
  const org = 'org_example';

  const evaluation = await docevals.evals.create(org, {
    name: 'Invoices',
    json_schema: {
      type: 'object',
      properties: {
        invoice_number: { type: 'string' },
        vendor: { type: 'string' },
        total: { type: 'number' },
      },
    },
    default_inference_settings: { model: 'local-rules' },
    documents: [
      {
        mime_data: { filename: 'acme.txt', url: text('Invoice Number: INV-001\nVendor: ACME Corp\nTotal: $1,234.50\n') },
        annotation: { invoice_number: 'INV-001', vendor: 'ACME Corp', total: 1234.5 },
      },
      {
        mime_data: { filename: 'globex.txt', url: text('Invoice number: G-77\nVendor: Globex\nTotal: 99.00\n') },
        // A mistake in the ground truth: the next step fixes it.
        annotation: { invoice_number: 'G-71', vendor: 'Globex', total: 99 },
      },
    ],
  });
  log(`evaluation ${evaluation.id} with ${evaluation.documents.length} documents`);

  const iteration = await docevals.evals.iterations.create(org, { evaluation_id: evaluation.id });
  const before = iteration.metric_results;
  for (const item of before.item_metrics) log(`  ${item.name}: similarity ${item.similarity.toFixed(4)}`);
  log(`mean similarity ${before.mean_similarity.toFixed(4)} (aligned ${before.aligned_mean_similarity.toFixed(4)})`);

  await docevals.evals.documents.update(org, {
    evaluation_id: evaluation.id,
    document_id: evaluation.documents[1]!.id,
    annotation: { invoice_number: 'G-77', vendor: 'Globex', total: 99 },
  });
  const after = (await docevals.evals.iterations.get(org, { evaluation_id: evaluation.id, iteration_id: iteration.id }))
    .metric_results;
  log(`after fixing the annotation: mean similarity ${after.mean_similarity.toFixed(4)}`);
  await docevals.close();
  return { before, after };
}
