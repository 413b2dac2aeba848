import { isDocevalsError, type IterationEvent } from '@docevals/core';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';

/**
 * Answers an iteration's events as Server-Sent Events: `id` is the event id (a reconnect sends it back as
 * `Last-Event-ID`), `event` its type, `data` its JSON. A comment line every `heartbeatMs` keeps proxies from
 * cutting a quiet stream. Ends after the final event, or when the client goes away (the events' iterator is closed).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function streamEvents(c: Context<any>, events: AsyncIterable<IterationEvent>, heartbeatMs: number, report: (error: unknown) => void): Response {
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(
    c,
    async (stream) => {
      const iterator = events[Symbol.asyncIterator]();
      let gone = false;
      const stop = () => {
        gone = true;
        void iterator.return?.(undefined)?.catch(() => undefined);
      };
      stream.onAbort(stop);
      c.req.raw.signal?.addEventListener('abort', stop, { once: true });
      const beat = setInterval(() => void stream.write(': heartbeat\n\n').catch(stop), heartbeatMs);
      try {
        await stream.write(': connected\n\n');
        while (!gone) {
          const next = await iterator.next();
          if (next.done || gone) break;
          await stream.writeSSE({ id: next.value.id, event: next.value.type, data: JSON.stringify(next.value.data) });
        }
      } finally {
        clearInterval(beat);
      }
    },
    async (error, stream) => {
      if (!isDocevalsError(error) || error.code === 'internal_error' || error.code === 'storage_error') report(error);
      // The stream is open: the failure goes as an `error` event (hono adds one with the message; keep it generic).
      void stream;
    },
  );
}
