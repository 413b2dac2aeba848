import { completion, FakeOpenAIServer } from './fake-openai-server.js';

export const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };
const text = (s: string) => `data:text/plain;base64,${Buffer.from(s).toString('base64')}`;

/** `count` invoices whose text names their number, annotated with what the fake model answers. */
export function invoiceDocuments(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    mime_data: { filename: `inv-${i}.txt`, url: text(`Invoice number: INV-${i}\nTotal: ${i + 1}\n`) },
    annotation: { invoice_number: `INV-${i}`, total: i + 1 },
  }));
}

/**
 * A loopback OpenAI-compatible server answering each invoice with its number and total after `latencyMs`, counting
 * calls started and answered per invoice number.
 */
export async function invoiceModel(latencyMs: number) {
  const fake = await new FakeOpenAIServer().start();
  const started = new Map<number, number>();
  const answered = new Map<number, number>();
  const state = { down: false };
  fake.handle = async (request) => {
    const n = Number(/INV-(\d+)/.exec(JSON.stringify(request.body))?.[1] ?? -1);
    started.set(n, (started.get(n) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, latencyMs));
    if (state.down) return { status: 400, body: { error: { message: 'the provider is down', type: 'invalid_request_error' } } };
    answered.set(n, (answered.get(n) ?? 0) + 1);
    return { body: completion({ invoice_number: `INV-${n}`, total: n + 1 }) };
  };
  return { fake, started, answered, state };
}

export async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
