import { DocevalsError } from '../errors.js';

/** The 413 of a request body over the host's limit, in the words every transport uses. */
export function bodyTooLarge(maxBytes: number): DocevalsError {
  return new DocevalsError(
    'payload_too_large',
    `The request body is larger than ${maxBytes} bytes, this server's limit; send a smaller body.`,
  );
}

/**
 * How long a whole request body may take to arrive, by default: 60 s (a 32 MiB body at 4.5 Mbit/s). A client that
 * sends slower holds its own connection that long, then gets a 408 (docs/spec/limits.md).
 */
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;

/** How a body is read besides its size limit. */
export interface BodyReadOptions {
  /**
   * The whole body must have arrived this many milliseconds after reading began, else 408 `request_timeout` (what
   * came is dropped, the rest never pulled). `0` or `Infinity`: no limit.
   * @default DEFAULT_BODY_TIMEOUT_MS (60 s)
   */
  timeoutMs?: number;
}

/** The 408 of a body that did not arrive in time. */
export function bodyTimedOut(timeoutMs: number): DocevalsError {
  return new DocevalsError(
    'request_timeout',
    `The request body did not arrive within ${Math.round(timeoutMs / 1000)} s, this server's limit; send it faster or smaller.`,
  );
}

/**
 * Streams a web `Request`'s body into `onChunk`, refusing with 413 when its `Content-Length` declares more than
 * `maxBytes` or as soon as more than `maxBytes` have streamed in (the rest is never pulled, never buffered), and
 * with 408 when it has not all arrived `timeoutMs` after the first read. A body that breaks off is a 400. Answers
 * how many bytes came.
 */
async function streamBodyAtMost(
  request: Request,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => void,
  options: BodyReadOptions = {},
): Promise<number> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) throw bodyTooLarge(maxBytes);
  if (request.body === null) return 0;
  const reader = request.body.getReader();
  const timeoutMs = options.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  // One timer for the whole body (not per read): a client trickling a byte a second cannot keep it open forever.
  // Cancelling the stream ends the pending read (done), and the rest is never pulled.
  let timedOut = false;
  const timer =
    timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          reader.cancel().catch(() => undefined);
        }, timeoutMs)
      : undefined;
  let total = 0;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (timedOut) throw bodyTimedOut(timeoutMs);
        throw new DocevalsError('bad_request', 'The request body could not be read to its end.', { cause: error });
      }
      if (timedOut) throw bodyTimedOut(timeoutMs);
      if (chunk.done) return total;
      total += chunk.value.byteLength;
      if (total > maxBytes) {
        // Stop pulling: the rest of the stream is dropped by the runtime, not stored.
        reader.cancel().catch(() => undefined);
        throw bodyTooLarge(maxBytes);
      }
      onChunk(chunk.value);
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A web `Request`'s body as bytes, at most `maxBytes` (413 past it, 400 when it breaks off, 408 when it has not
 * arrived within `options.timeoutMs`). Shared by the REST and tRPC transports, so both answer an oversized, slow or
 * broken body the same way (docs/spec/limits.md).
 *
 * @example
 * const bytes = await readBodyAtMost(request, 32 * 1024 * 1024, { timeoutMs: 60_000 });
 */
export async function readBodyAtMost(request: Request, maxBytes: number, options: BodyReadOptions = {}): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const total = await streamBodyAtMost(request, maxBytes, (chunk) => chunks.push(chunk), options);
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * {@link readBodyAtMost} as UTF-8 text, decoded chunk by chunk as the body arrives (no copy of the whole body, no
 * single decode of 32 MiB holding the event loop): the same 413s and 408, and a 400 `bad_request` saying `notUtf8`
 * when a byte sequence is not UTF-8 (never replaced by U+FFFD).
 *
 * @example
 * const text = await readBodyTextAtMost(request, 32 * 1024 * 1024, 'The request body is not valid UTF-8.');
 */
export async function readBodyTextAtMost(request: Request, maxBytes: number, notUtf8: string, options: BodyReadOptions = {}): Promise<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parts: string[] = [];
  // Past a malformed sequence the rest is still read (not decoded), as a whole body is, before the 400.
  let malformed = false;
  const decode = (bytes?: Uint8Array) => {
    if (malformed) return;
    try {
      parts.push(bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode());
    } catch {
      malformed = true;
      parts.length = 0;
    }
  };
  await streamBodyAtMost(request, maxBytes, decode, options);
  decode();
  if (malformed) throw new DocevalsError('bad_request', notUtf8);
  return parts.join('');
}
