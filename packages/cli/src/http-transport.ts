import type { IterationEvent, IterationSummary } from '@docevals/core';
import { EventSource } from 'eventsource';
import { CliError, EXIT, exitCodeOfApiError } from './errors.js';

// The HTTP client's wire parts (client.ts): one request, the export body as text, the events stream.

/** What a request sends besides its method and path. */
export interface SendInit {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/** One request to the server: the response when it is ok, else a CliError saying what the server answered. */
export async function sendRequest(
  base: string,
  doFetch: typeof fetch,
  headers: (extra?: Record<string, string>) => Record<string, string>,
  method: string,
  path: string,
  init: SendInit,
): Promise<Response> {
  const url = new URL(`${base}${path}`);
  for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  let response: Response;
  try {
    response = await doFetch(url, {
      method,
      headers: headers(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`cannot reach ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, EXIT.server, error);
  }
  if (response.ok) return response;
  const text = await response.text().catch(() => '');
  let body: { error?: { code?: string; message?: string; issues?: Array<{ path: string; message: string }> } } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // not JSON: a proxy's page, say its status only
  }
  const e = body.error;
  const issues = e?.issues?.map((i) => `  ${i.path || '(body)'}: ${i.message}`).join('\n');
  const hint = response.status === 401 ? ' (set --api-key or DOCEVALS_API_KEY)' : '';
  throw new CliError(
    `${method} ${url.pathname} answered ${response.status}${e?.code ? ` ${e.code}` : ''}: ${e?.message ?? (text.slice(0, 200) || response.statusText)}${hint}${issues ? `\n${issues}` : ''}`,
    exitCodeOfApiError(e?.code ?? '', response.status),
    body,
  );
}

/**
 * A server from before background jobs answers the whole iteration without `status`, `progress` and `usage`: it
 * is done, and its predictions say how many documents it ran.
 */
export function asSummary(iteration: IterationSummary & { predictions?: unknown[] }): IterationSummary {
  const total = iteration.predictions?.length ?? 0;
  return {
    ...iteration,
    status: iteration.status ?? 'completed',
    progress: iteration.progress ?? { total, succeeded: total, failed: 0, pending: 0 },
    usage: iteration.usage ?? { input_tokens: 0, output_tokens: 0, cost: 0 },
    error: iteration.error ?? null,
  };
}

/** A response body as text chunks; stopping early cancels the body. */
export async function* textChunks(body: NonNullable<Response['body']>): AsyncIterable<string> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel();
  }
}

const EVENT_TYPES = ['document', 'progress', 'completed', 'failed', 'cancelled'] as const;
const FINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * An iteration's SSE stream as an async iterable. `eventsource` reconnects on its own and sends `Last-Event-ID`,
 * so a dropped connection loses and repeats nothing; the iterable ends after the final event or on `signal`.
 */
export function sseEvents(url: string, headers: Record<string, string>, doFetch: typeof fetch, signal: AbortSignal): AsyncIterable<IterationEvent> {
  return {
    [Symbol.asyncIterator]() {
      const queue: IterationEvent[] = [];
      let wake: (() => void) | null = null;
      let failure: CliError | null = null;
      let done = false;
      const source = new EventSource(url, {
        fetch: (input, init) => doFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
      });
      const notify = () => {
        wake?.();
        wake = null;
      };
      const finish = () => {
        done = true;
        source.close();
        notify();
      };
      for (const type of EVENT_TYPES) {
        source.addEventListener(type, (message) => {
          queue.push({ id: message.lastEventId, type, data: JSON.parse(String(message.data)) as unknown } as IterationEvent);
          if (FINAL.has(type)) finish();
          else notify();
        });
      }
      source.onerror = (event) => {
        // The server's `error` event: the stream failed after it opened; its data is the REST error body.
        const data: unknown = 'data' in event ? event.data : undefined;
        if (typeof data === 'string' && !done) {
          let body: { error?: { code?: string; message?: string } } = {};
          try {
            body = JSON.parse(data) as typeof body;
          } catch {
            // not JSON: said as it is below
          }
          failure = new CliError(`the events stream failed: ${body.error?.code ?? 'error'}: ${body.error?.message ?? data}`, exitCodeOfApiError(body.error?.code ?? 'internal_error'));
          finish();
          return;
        }
        // A closed source (4xx, wrong content type) does not reconnect: report it. Otherwise eventsource retries.
        if (source.readyState === EventSource.CLOSED && !done) {
          failure = new CliError(`the events stream of ${url} failed: ${event.message ?? `status ${event.code ?? '?'}`}`, event.code && event.code < 500 ? EXIT.refused : EXIT.server);
          finish();
        }
      };
      signal.addEventListener('abort', finish, { once: true });
      return {
        async next(): Promise<IteratorResult<IterationEvent>> {
          for (;;) {
            const event = queue.shift();
            if (event) return { value: event, done: false };
            if (failure) throw failure;
            if (done) return { value: undefined, done: true };
            await new Promise<void>((resolve) => (wake = resolve));
          }
        },
        async return(): Promise<IteratorResult<IterationEvent>> {
          finish();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
