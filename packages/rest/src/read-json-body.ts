import { assertJsonContainersWithin, bodyTooLarge, DocevalsError, readBodyTextAtMost, validationError, type BodyReadOptions } from '@docevals/core/internal';

/** What {@link readJsonBody} returns: the body's top-level object, not validated further (the core does that). */
export type JsonBody = Record<string, unknown>;

/**
 * Reads a request body as a JSON object, in the order a client's mistakes are cheapest to find:
 * 415 when the content type is not `application/json` (a `charset=utf-8` parameter is fine) or the body is
 * compressed, 413 when the declared
 * `Content-Length` or the bytes actually streamed pass `maxBytes` (counted chunk by chunk: a 1 GB body is refused
 * once `maxBytes` have arrived, never buffered), 400 when the bytes are not UTF-8 JSON, 413 when the text holds more
 * objects and arrays than `LIMITS.maxJsonContainersPerBody` (counted before parsing), 422 when the JSON is not an
 * object. An empty body is `{}`. Nothing here walks the parsed value, so nesting depth is left to the core's schemas.
 */
export async function readJsonBody(request: Request, maxBytes: number, options: BodyReadOptions = {}): Promise<JsonBody> {
  const contentType = request.headers.get('content-type');
  if (contentType !== null) assertJsonContentType(contentType);
  const encoding = request.headers.get('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new DocevalsError(
      'unsupported_media_type',
      `Content-Encoding "${encoding}" is not supported; send the JSON body uncompressed.`,
    );
  }

  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) throw bodyTooLarge(maxBytes);

  const announcesBody = (declared !== null && declared.trim() !== '0') || request.headers.has('transfer-encoding');
  if (contentType === null && announcesBody) throw unsupportedMediaType('none');

  const text = await readBodyTextAtMost(request, maxBytes, 'The request body is not valid UTF-8; send JSON encoded as UTF-8.', options);
  if (text === '') return {};
  if (contentType === null) throw unsupportedMediaType('none');
  // Before parsing: 10 million `{}` fit in 31 MB and would take seconds and a gigabyte to parse (413).
  assertJsonContainersWithin(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? ` (${error.message})` : '';
    throw new DocevalsError('bad_request', `The request body is not valid JSON${reason}.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError('The request body must be a JSON object.', [
      { path: '', message: `expected a JSON object, received ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}` },
    ]);
  }
  return value as JsonBody;
}

/**
 * Reads a text body of one of `accepted` media types (`text/csv` and the like), with the same size limit and UTF-8
 * check as {@link readJsonBody}. Returns null when the body is not of one of those types (the caller reads JSON).
 */
export async function readTextBody(
  request: Request,
  maxBytes: number,
  accepted: Readonly<Record<string, string>>,
  options: BodyReadOptions = {},
): Promise<{ kind: string; text: string } | null> {
  const mediaType = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const kind = Object.prototype.hasOwnProperty.call(accepted, mediaType) ? accepted[mediaType]! : null;
  if (kind === null) return null;
  const text = await readBodyTextAtMost(request, maxBytes, `The request body is not valid UTF-8; send ${mediaType} encoded as UTF-8.`, options);
  return { kind, text };
}

function assertJsonContentType(contentType: string): void {
  const [mediaType = '', ...parameters] = contentType.split(';');
  if (mediaType.trim().toLowerCase() !== 'application/json') throw unsupportedMediaType(mediaType.trim());
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value.trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') {
      throw new DocevalsError(
        'unsupported_media_type',
        `The charset "${charset}" is not supported; send JSON encoded as UTF-8 (Content-Type: application/json).`,
      );
    }
  }
}

function unsupportedMediaType(received: string): DocevalsError {
  return new DocevalsError(
    'unsupported_media_type',
    `The request body must be JSON with Content-Type: application/json (received ${received === 'none' ? 'no Content-Type' : `"${received}"`}).`,
  );
}
