// The invoice fixtures and the counting model live in test-support (the queue-mode package's tests use them too).
export { invoiceDocuments, invoiceModel, SCHEMA, until } from '../../../../test-support/invoice-model.js';

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
