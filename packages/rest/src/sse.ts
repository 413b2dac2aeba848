import { internalError, isDocevalsError, type IterationEvent } from '@docevals/core';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';

/**
 * Answers an iteration's events as Server-Sent Events: `id` is the event id (a reconnect sends it back as
 * `Last-Event-ID`), `event` its type, `data` its JSON. A comment line every `heartbeatMs` keeps proxies from
 * cutting a quiet stream. Ends after the final event, or when the client goes away (the events' iterator is closed).
 */
export function streamEvents(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  c: Context<any>,
  events: AsyncIterable<IterationEvent>,
  heartbeatMs: number,
  report: (error: unknown) => void,
  onClose: () => void = () => undefined,
): Response {
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(
    c,
    async (stream) => {
      const iterator = events[Symbol.asyncIterator]();
      let gone = false;
      let abandoned!: () => void;
      const closed = new Promise<'closed'>((resolve) => (abandoned = () => resolve('closed')));
      const stop = () => {
        gone = true;
        // The client is gone: its place is free at once, whatever the reader is waiting for.
        onClose();
        abandoned();
        void iterator.return?.(undefined)?.catch(() => undefined);
      };
      stream.onAbort(stop);
      c.req.raw.signal?.addEventListener('abort', stop, { once: true });
      const beat = setInterval(() => void stream.write(': heartbeat\n\n').catch(stop), heartbeatMs);
      try {
        await stream.write(': connected\n\n');
        while (!gone) {
          const next = await Promise.race([iterator.next(), closed]);
          if (next === 'closed' || next.done || gone) break;
          await stream.writeSSE({ id: next.value.id, event: next.value.type, data: JSON.stringify(next.value.data) });
        }
      } catch (error) {
        if (gone) return;
        // The status line is sent: a failure goes as an `error` event with the error body REST would have answered
        // (an unexpected one says nothing about the server), and the stream ends.
        const expected = isDocevalsError(error) && error.code !== 'internal_error';
        if (!expected || error.code === 'storage_error') report(error);
        const body = expected ? error.toJSON() : internalError().toJSON();
        await stream.writeSSE({ event: 'error', data: JSON.stringify(body) }).catch(() => undefined);
      } finally {
        clearInterval(beat);
        onClose();
      }
    },
  );
}
