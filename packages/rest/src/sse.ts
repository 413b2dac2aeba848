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

/**
 * Open event streams per organization, in this process: one past `max` gets a 429 `rate_limited` instead of another
 * stream (docs/spec/limits.md), so 1,000 subscribers of one tenant cannot crowd out the others.
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {}

  /** A release function (call it once, when the stream ends), or null when `key` (the organization) already holds `max` streams. */
  acquire(key: string): (() => void) | null {
    const count = this.open.get(key) ?? 0;
    if (this.max > 0 && count >= this.max) return null;
    this.open.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }
}
