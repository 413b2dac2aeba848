import { completion, FakeOpenAIServer } from '../../../../test-support/fake-openai-server.js';

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

export interface SseEvent {
  id: string;
  event: string;
  data: any;
}

/**
 * Reads a Server-Sent Events response with fetch: yields each event (comments skipped). Break out to disconnect.
 */
export async function* readSse(url: string, key: string, lastEventId?: string): AsyncGenerator<SseEvent> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { 'api-key': key, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: controller.signal,
  });
  if (response.status !== 200) throw new Error(`SSE answered ${response.status}: ${await response.text()}`);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':') || line === '') continue;
          const at = line.indexOf(':');
          const name = line.slice(0, at);
          const value = line.slice(at + 1).replace(/^ /, '');
          fields[name] = fields[name] === undefined ? value : `${fields[name]}\n${value}`;
        }
        if (fields.data === undefined) continue;
        yield { id: fields.id ?? '', event: fields.event ?? 'message', data: JSON.parse(fields.data) };
      }
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => undefined);
  }
}

export async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
