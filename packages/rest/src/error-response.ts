import { internalError, isDocevalsError, type ErrorCode } from '@docevals/core';

/**
 * The one table from error codes to HTTP statuses (docs/spec/service.md, Errors). Anything that is not a
 * `DocevalsError` is an `internal_error`, a 500.
 */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze({
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  rate_limited: 429,
  extractor_error: 502,
  storage_error: 503,
  not_configured: 501,
  internal_error: 500,
});

/**
 * The HTTP status of an error code; 500 for a code this table does not know.
 *
 * @example
 * statusOf('validation_error'); // 422
 */
export function statusOf(code: string): number {
  return (STATUS_BY_CODE as Record<string, number>)[code] ?? 500;
}

const INTERNAL_ERROR = internalError();

/**
 * Turns any thrown value into the error response of docs/spec/service.md: `{"error": {"code", "message", "issues"?}}`.
 * A `DocevalsError` keeps its code, message and issues; anything else becomes a 500 `internal_error` whose
 * body says nothing about the failure (no message, stack or cause of the original error).
 *
 * @example
 * errorResponse(new DocevalsError('conflict', 'The id "eval_1" is taken.')); // 409 {"error":{"code":"conflict",...}}
 * errorResponse(new TypeError('x is undefined'));                            // 500 internal_error, no details
 */
export function errorResponse(error: unknown, headers?: Record<string, string>): Response {
  const status = isDocevalsError(error) ? statusOf(error.code) : 500;
  const body = status === 500 || !isDocevalsError(error) ? INTERNAL_ERROR.toJSON() : error.toJSON();
  const response = Response.json(body, { status, headers });
  // A 413 or 408 leaves the rest of the body unread: ask the client to stop sending and open a new connection.
  if (status === 413 || status === 408) response.headers.set('connection', 'close');
  // RFC 9110 15.5.2: a 401 names the schemes it accepts.
  if (status === 401 && !response.headers.has('www-authenticate')) response.headers.set('www-authenticate', wwwAuthenticate(false));
  // RFC 9110 10.2.3: a 429 says when to come back.
  if (status === 429 && isDocevalsError(error) && error.retry_after !== undefined && !response.headers.has('retry-after')) {
    response.headers.set('retry-after', String(error.retry_after));
  }
  return response;
}

/**
 * The `WWW-Authenticate` of a 401: the Bearer scheme (RFC 6750), with `error="invalid_token"` when a key was sent
 * but is not valid. The other way to send a key, the `Api-Key` header, is named in the error message.
 *
 * @example
 * wwwAuthenticate(false); // 'Bearer realm="docevals"'
 * wwwAuthenticate(true);  // 'Bearer realm="docevals", error="invalid_token", error_description="The API key sent is not valid"'
 */
export function wwwAuthenticate(keySent: boolean): string {
  return keySent
    ? 'Bearer realm="docevals", error="invalid_token", error_description="The API key sent is not valid"'
    : 'Bearer realm="docevals"';
}

/** True when `error` would be answered with a 500: the ones a host wants to log. */
export function isUnexpected(error: unknown): boolean {
  return !isDocevalsError(error) || statusOf(error.code) >= 500;
}
