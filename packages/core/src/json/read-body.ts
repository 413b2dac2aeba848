import { DocevalsError } from '../errors.js';

/** The 413 of a request body over the host's limit, in the words every transport uses. */
export function bodyTooLarge(maxBytes: number): DocevalsError {
  return new DocevalsError(
    'payload_too_large',
    `The request body is larger than ${maxBytes} bytes, this server's limit; send a smaller body.`,
  );
}

/**
 * Streams a web `Request`'s body into `onChunk`, refusing with 413 when its `Content-Length` declares more than
 * `maxBytes` or as soon as more than `maxBytes` have streamed in (the rest is never pulled, never buffered). A body
 * that breaks off is a 400. Answers how many bytes came.
 */
async function streamBodyAtMost(request: Request, maxBytes: number, onChunk: (chunk: Uint8Array) => void): Promise<number> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) throw bodyTooLarge(maxBytes);
  if (request.body === null) return 0;
  const reader = request.body.getReader();
  let total = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw new DocevalsError('bad_request', 'The request body could not be read to its end.', { cause: error });
    }
    if (chunk.done) return total;
    total += chunk.value.byteLength;
    if (total > maxBytes) {
      // Stop pulling: the rest of the stream is dropped by the runtime, not stored.
      reader.cancel().catch(() => undefined);
      throw bodyTooLarge(maxBytes);
    }
    onChunk(chunk.value);
  }
}

/**
 * A web `Request`'s body as bytes, at most `maxBytes` (413 past it, 400 when it breaks off). Shared by the REST and
 * tRPC transports, so both answer an oversized or broken body the same way (docs/spec/limits.md).
 *
 * @example
 * const bytes = await readBodyAtMost(request, 32 * 1024 * 1024);
 */
export async function readBodyAtMost(request: Request, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const total = await streamBodyAtMost(request, maxBytes, (chunk) => chunks.push(chunk));
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
 * single decode of 32 MiB holding the event loop): the same 413s, and a 400 `bad_request` saying `notUtf8` when a
 * byte sequence is not UTF-8 (never replaced by U+FFFD).
 *
 * @example
 * const text = await readBodyTextAtMost(request, 32 * 1024 * 1024, 'The request body is not valid UTF-8.');
 */
export async function readBodyTextAtMost(request: Request, maxBytes: number, notUtf8: string): Promise<string> {
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
  await streamBodyAtMost(request, maxBytes, decode);
  decode();
  if (malformed) throw new DocevalsError('bad_request', notUtf8);
  return parts.join('');
}
