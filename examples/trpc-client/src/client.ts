import { Buffer } from 'node:buffer';
import { pathToFileURL } from 'node:url';
import type { MetricResults } from '@docevals/core';
import type { DocevalsRouter } from '@docevals/trpc';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';

export interface DocevalsClientOptions {
  /** The server's tRPC endpoint. @default process.env.DOCEVALS_URL ?? 'http://127.0.0.1:3000/trpc' */
  url?: string;
  /** Sent as the `Api-Key` header. @default process.env.DOCEVALS_API_KEY */
  apiKey?: string;
}

/**
 * A typed docevals client over HTTP: every input and output is typed from the core's zod schemas, through the
 * router's type alone (`import type`: no server code in the client bundle).
 *
 * @example
 * const client = createDocevalsClient({ url: 'http://127.0.0.1:3000/trpc', apiKey: 'sk_dev' });
 * const { data } = await client.evals.list.query({ limit: 5 });
 */
export function createDocevalsClient(options: DocevalsClientOptions = {}) {
  const url = options.url ?? process.env.DOCEVALS_URL ?? 'http://127.0.0.1:3000/trpc';
  const apiKey = options.apiKey ?? process.env.DOCEVALS_API_KEY;
  if (!apiKey) throw new Error('No API key: pass apiKey or set DOCEVALS_API_KEY.');
  return createTRPCClient<DocevalsRouter>({
    links: [httpBatchLink({ url, headers: { 'Api-Key': apiKey } })],
  });
}

export type DocevalsClient = ReturnType<typeof createDocevalsClient>;

const text = (s: string) => `data:text/plain;base64,${Buffer.from(s).toString('base64')}`;

/**
 * A short flow: an evaluation of two text invoices, an iteration with the offline `local-rules` model, an
 * annotation fix that moves the metrics, and a processor run on one document.
 */
export async function runClientFlow(
  client: DocevalsClient,
  log: (line: string) => void = console.log,
): Promise<{ before: MetricResults; after: MetricResults }> {
  const json_schema = {
    type: 'object',
    properties: { invoice_number: { type: 'string' }, vendor: { type: 'string' }, total: { type: 'number' } },
  };
  const evaluation = await client.evals.create.mutate({
    name: 'Invoices (tRPC)',
    json_schema,
    default_inference_settings: { model: 'local-rules' },
    documents: [
      {
        mime_data: { filename: 'acme.txt', url: text('Invoice Number: INV-001\nVendor: ACME Corp\nTotal: $1,234.50\n') },
        annotation: { invoice_number: 'INV-001', vendor: 'ACME Corp', total: 1234.5 },
      },
      {
        mime_data: { filename: 'globex.txt', url: text('Invoice number: G-77\nVendor: Globex\nTotal: 99.00\n') },
        // A mistake in the ground truth, fixed below.
        annotation: { invoice_number: 'G-71', vendor: 'Globex', total: 99 },
      },
    ],
  });
  log(`evaluation ${evaluation.id} with ${evaluation.documents.length} documents`);

  const iteration = await client.evals.iterations.create.mutate({
    evaluation_id: evaluation.id,
    inference_settings: { model: 'local-rules' },
  });
  const before = iteration.metric_results;
  for (const item of before.item_metrics) log(`  ${item.name}: similarity ${item.similarity.toFixed(4)}`);
  log(`mean similarity ${before.mean_similarity.toFixed(4)} (aligned ${before.aligned_mean_similarity.toFixed(4)})`);

  await client.evals.documents.update.mutate({
    evaluation_id: evaluation.id,
    document_id: evaluation.documents[1]!.id,
    annotation: { invoice_number: 'G-77', vendor: 'Globex', total: 99 },
  });
  const { data: iterations } = await client.evals.iterations.list.query({ evaluation_id: evaluation.id, model: 'local-rules' });
  const after = iterations.find((it) => it.id === iteration.id)!.metric_results;
  log(`after fixing the annotation: mean similarity ${after.mean_similarity.toFixed(4)}`);

  const processor = await client.processors.create.mutate({ name: 'Invoice reader', model: 'local-rules', json_schema });
  const submitted = await client.processors.submit.mutate({
    processor_id: processor.id,
    document: { filename: 'acme.txt', url: evaluation.documents[0]!.mime_data.url },
  });
  log(`processor ${processor.id} read: ${JSON.stringify(submitted.prediction)}`);
  return { before, after };
}

// `pnpm --filter @docevals/example-trpc-client start` against a running server (see server.ts).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await runClientFlow(createDocevalsClient());
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    // `data.code` is tRPC's key (`NOT_FOUND`), `data.docevalsCode` the docevals error code (`not_found`, the REST
    // API's `error.code`); `data.issues` lists what to fix in a validation error.
    const data = (error as TRPCClientError<DocevalsRouter>).data;
    console.error(`${data?.code ?? 'ERROR'} (${data?.docevalsCode ?? 'unknown'}): ${error.message}`);
    for (const issue of data?.issues ?? []) console.error(`  ${issue.path || '(input)'}: ${issue.message}`);
    process.exitCode = 1;
  }
}
