import { internalError, isDocevalsError, yieldToEventLoop, type IterationEvent } from '@docevals/core/internal';
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
        let pending: Promise<IteratorResult<IterationEvent>> | null = null;
        while (!gone) {
          const next = await Promise.race([(pending ??= iterator.next()), closed]);
          pending = null;
          if (next === 'closed' || next.done || gone) break;
          // What else is ready now (a replay from the start, a burst of documents) goes in the same write: one
          // socket write per batch instead of one per event, on both ends of the connection.
          let text = sseMessage(next.value);
          let ended = false;
          let failed: { error: unknown } | undefined;
          for (let count = 1; count < MAX_EVENTS_PER_WRITE; count++) {
            pending = iterator.next();
            const ready = await Promise.race([pending, afterMicrotasks()]).catch((error: unknown) => ({ error }));
            if (ready === NOT_READY) break; // still pending: the loop's next round awaits it
            pending = null;
            if ('error' in ready) failed = ready; // the events read before it go out first
            else if (!ready.done) {
              text += sseMessage(ready.value);
              continue;
            }
            ended = true;
            break;
          }
          await stream.write(text);
          if (failed) throw failed.error;
          if (ended) break;
        }
        // Left while a read was under way (the client went): its end, or failure, concerns no one now.
        void pending?.catch(() => undefined);
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

/** The most events one socket write carries. */
const MAX_EVENTS_PER_WRITE = 256;

const NOT_READY = Symbol('not ready');

/** Resolves after every microtask queued now has run: an iterator step that needs no I/O has settled by then. */
const afterMicrotasks = () => yieldToEventLoop().then((): typeof NOT_READY => NOT_READY);

/**
 * One event as a Server-Sent Events message (`event`, `data`, `id`, then a blank line), as Hono's `writeSSE` writes it.
 * Event ids and types are the core's (no line breaks); the data is one line of JSON.
 */
function sseMessage(event: IterationEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event.data)}\nid: ${event.id}\n\n`;
}
