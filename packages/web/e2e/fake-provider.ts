// The model provider the end-to-end tests run iterations against: the workspace's loopback OpenAI-compatible fake
// (test-support/fake-openai-server.ts), answering from the document's own text so that similarity depends on the
// document and on the model. Documents are text files of `key: value` lines (see `invoiceText`); a document of the
// server's sample (named in the prompt's "Document: <filename>" line, whatever its format: text, PDF or image) is
// read as its ground truth (the sample's generator, apps/server/src/sample), so that an iteration run on the sample
// scores like a model that reads it, not 0 on a shape of another schema.
//   - model `fake-good`: reads every field right;
//   - model `fake-bad`: reads `currency` wrong (EUR and USD swapped: similarity 0 on that field, so a compare with
//     fake-good's iteration lists `currency` as the regressed field and every document as regressed), the rest right;
//   - model `fake-slow`: like fake-good, 150 ms a call (a run that can be watched and cancelled).
import { generatedSpecs, HAND_WRITTEN, type SampleRecord } from '../../../apps/server/src/sample/records.js';
import { completion, FakeOpenAIServer, type RecordedRequest } from '../../../test-support/fake-openai-server.js';

/** The JSON schema of the test evaluations. */
export const invoiceSchema = {
  type: 'object',
  properties: { vendor: { type: 'string' }, total: { type: 'number' }, currency: { type: 'string' } },
  required: ['vendor', 'total', 'currency'],
} as const;

export interface Invoice {
  vendor: string;
  total: number;
  currency: string;
}

/** A document's text: one `key: value` line per field. */
export const invoiceText = (invoice: Invoice) => `vendor: ${invoice.vendor}\ntotal: ${invoice.total}\ncurrency: ${invoice.currency}\n`;

/** Every text part of the request's messages, joined. */
function requestText(request: RecordedRequest): string {
  const parts: string[] = [];
  for (const message of request.body?.messages ?? []) {
    if (typeof message.content === 'string') parts.push(message.content);
    else for (const part of message.content ?? []) if (typeof part?.text === 'string') parts.push(part.text);
  }
  return parts.join('\n');
}

/** Reads the `key: value` lines of the document out of the prompt. */
export function readInvoice(text: string): Invoice {
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';
  return { vendor: field('vendor'), total: Number(field('total')) || 0, currency: field('currency') };
}

/** The currency fake-bad reads instead of the right one. */
export const wrongCurrency = (currency: string) => (currency === 'EUR' ? 'USD' : 'EUR');

/** The sample's ground truth by file name (the sample is deterministic: the same documents at every load). */
const SAMPLE_TRUTH = new Map<string, SampleRecord>([...HAND_WRITTEN, ...generatedSpecs()].map((spec) => [spec.filename, spec.truth]));

/** What the document says: the sample's ground truth for a sample document, else its `key: value` lines. */
export function readDocument(text: string): Invoice | SampleRecord {
  const filename = /^Document: (.+)$/m.exec(text)?.[1]?.trim();
  return (filename !== undefined ? SAMPLE_TRUTH.get(filename) : undefined) ?? readInvoice(text);
}

export async function startFakeProvider(): Promise<FakeOpenAIServer> {
  const server = await new FakeOpenAIServer().start();
  server.handle = (request) => {
    const model = String(request.body?.model ?? '');
    const read = readDocument(requestText(request));
    const answer = model === 'fake-bad' ? { ...read, currency: wrongCurrency(read.currency) } : read;
    return { body: completion(answer, { model }), delayMs: model === 'fake-slow' ? 150 : 5 };
  };
  return server;
}
