import { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';

/** The `fetch` signature the OpenAI SDK calls (and the extractor's `fetch` option takes). */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface UndiciFetchOptions {
  /**
   * The undici dispatcher requests go through (a `ProxyAgent`, an `Agent` with other pool settings). It must come
   * from the `undici` package this library depends on. @default one keep-alive `Agent` shared by the process
   */
  dispatcher?: Dispatcher;
}

let sharedAgent: Agent | undefined;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` built on undici's `request()`: the same HTTP/1.1 keep-alive pool as Node's own `fetch`, without the
 * WHATWG fetch machinery on the way out (the request object, its body stream, the fetch controller); the response
 * body is read whole and handed over as a standard `Response`. About half the CPU of Node's `fetch` per call
 * on loopback (docs/benchmarks.md), which is most of what a fast model's call costs the pipeline.
 *
 * What it does not do itself goes to `globalThis.fetch` unchanged: a `Request` object as input, a body other than a
 * string, bytes or URLSearchParams (form data, streams), and redirects (the original request is sent again through
 * `fetch`, which follows them by its rules). `text/event-stream` answers are streamed, not buffered.
 */
export function undiciFetch(options: UndiciFetchOptions = {}): FetchFunction {
  return async function fetchWithUndici(input, init = {}) {
    const dispatcher = options.dispatcher ?? (sharedAgent ??= new Agent({ keepAliveTimeout: 10_000 }));
    const body = init.body;
    const simpleBody =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array || body instanceof URLSearchParams;
    if (input instanceof Request || !simpleBody) return globalThis.fetch(input, init);
    const url = typeof input === 'string' ? input : input.href;
    const headers = plainHeaders(init.headers);
    let payload: string | Uint8Array | null = null;
    if (body instanceof URLSearchParams) {
      payload = body.toString();
      if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    } else if (body !== undefined && body !== null) {
      payload = body;
      if (typeof body === 'string' && !hasHeader(headers, 'content-type')) headers['content-type'] = 'text/plain;charset=UTF-8';
    }
    const method = (init.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod;
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, { method, headers, body: payload, dispatcher, ...(init.signal ? { signal: init.signal } : {}) });
    } catch (error) {
      // Like fetch: an aborted request rejects with the signal's reason (an AbortError unless the caller gave one).
      if (init.signal?.aborted) throw init.signal.reason ?? error;
      throw new TypeError('fetch failed', { cause: error });
    }
    const { statusCode, headers: responseHeaders, body: stream } = answer;
    if (REDIRECTS.has(statusCode) && responseHeaders.location !== undefined && init.redirect !== 'manual') {
      stream.resume();
      return globalThis.fetch(input, init);
    }
    const pairs: Array<[string, string]> = [];
    for (const name in responseHeaders) {
      const value = responseHeaders[name];
      if (Array.isArray(value)) for (const v of value) pairs.push([name, v]);
      else if (value !== undefined) pairs.push([name, value]);
    }
    let responseBody: BodyInit | null;
    if (NULL_BODY.has(statusCode) || method === 'HEAD') {
      stream.resume();
      responseBody = null;
    } else if (String(responseHeaders['content-type'] ?? '').startsWith('text/event-stream')) {
      responseBody = Readable.toWeb(stream) as ReadableStream<Uint8Array>;
    } else {
      try {
        responseBody = await stream.arrayBuffer();
      } catch (error) {
        if (init.signal?.aborted) throw init.signal.reason ?? error;
        throw new TypeError('fetch failed', { cause: error });
      }
    }
    const response = new Response(responseBody, { status: statusCode, headers: pairs });
    Object.defineProperty(response, 'url', { value: url });
    return response;
  };
}

/** A fetch `HeadersInit` as the plain object undici takes (names lower-cased). */
function plainHeaders(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  if (init instanceof Headers || Array.isArray(init)) {
    for (const [name, value] of init as Iterable<[string, string]>) out[name.toLowerCase()] = value;
  } else {
    for (const name of Object.keys(init)) out[name.toLowerCase()] = String((init as Record<string, string>)[name]);
  }
  return out;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(headers, name);
}
