import { DocevalsError, readBodyAtMost, validationError, type BodyReadOptions } from '@docevals/core/internal';
import type { JsonBody } from './read-json-body.js';

/** True when the request carries `multipart/form-data`. */
export function isMultipart(request: Request): boolean {
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  return type === 'multipart/form-data';
}

/**
 * Reads a `multipart/form-data` submit (the reference SDK's form: a `document` file part, plus optional fields such
 * as `temperature`, `seed` and `store`) as the JSON body of the same call: `{document: {filename, url}}`, the file's
 * bytes as a base64 data URL of its part's content type. The same size limit as JSON, counted while the body
 * streams in (413), the same body-read time (408); a body that is not valid multipart is a 400; no `document` file part is a 422 at `document`.
 * The other fields are not part of the call: a processor extracts with its stored settings, and a submit stores
 * nothing.
 */
export async function readFormBody(request: Request, maxBytes: number, options: BodyReadOptions = {}): Promise<JsonBody> {
  const bytes = await readBodyAtMost(request, maxBytes, options);
  let form: FormData;
  try {
    form = await new Response(streamOf(bytes), { headers: { 'content-type': request.headers.get('content-type')! } }).formData();
  } catch (error) {
    throw new DocevalsError(
      'bad_request',
      'The request body is not valid multipart/form-data (check the boundary parameter of Content-Type).',
      { cause: error },
    );
  }
  const document = form.get('document');
  if (document === null || typeof document === 'string') {
    throw validationError('Invalid request: document: a file part named "document" is required.', [
      { path: 'document', message: 'a file part named "document" is required' },
    ]);
  }
  const type = document.type || 'application/octet-stream';
  const content = new Uint8Array(await document.arrayBuffer());
  return { document: { filename: document.name || 'document', url: `data:${type};base64,${toBase64(content)}` } };
}

/**
 * The bytes as a one-chunk stream: a body without a copy (`BodyInit` takes only bytes over an `ArrayBuffer`, and the
 * type of the bytes read does not say theirs is not shared).
 */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** Base64 of bytes, in chunks small enough for `String.fromCharCode`'s argument list. */
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}
