import { DocevalsError, INTERNAL_ERROR_MESSAGE, isDocevalsError, type ErrorCode, type ErrorIssue } from '@docevals/core';
import { invalidRequest, issuesOf } from '@docevals/core/internal';
import { TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server';

/**
 * The one table from docevals error codes to tRPC codes (and so to HTTP statuses, which tRPC derives from them).
 * Where two docevals codes share a tRPC code, the first one listed is the code reported for tRPC's own errors of
 * that kind (a malformed batch is `bad_request`, not `validation_error`).
 */
export const TRPC_CODE_BY_ERROR_CODE = {
  bad_request: 'BAD_REQUEST',
  validation_error: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_SUPPORTED',
  request_timeout: 'TIMEOUT',
  conflict: 'CONFLICT',
  rate_limited: 'TOO_MANY_REQUESTS',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  extractor_error: 'BAD_GATEWAY',
  storage_error: 'SERVICE_UNAVAILABLE',
  not_configured: 'NOT_IMPLEMENTED',
  internal_error: 'INTERNAL_SERVER_ERROR',
} as const satisfies Record<ErrorCode, TRPC_ERROR_CODE_KEY>;

/** What an unexpected failure says to the caller: nothing about the server's internals (the core's, as REST says it). */
export { INTERNAL_ERROR_MESSAGE };

/**
 * The docevals code a caller sees for an error tRPC raised by itself (or a host threw as a TRPCError): the first
 * table entry mapping to its tRPC code, else `bad_request` for another 4xx (`PARSE_ERROR`, `TIMEOUT`, ...)
 * and `internal_error` for another 5xx.
 *
 * @example
 * errorCodeForTRPCCode('NOT_FOUND', 404); // 'not_found'
 * errorCodeForTRPCCode('PARSE_ERROR', 400); // 'bad_request'
 */
export function errorCodeForTRPCCode(code: TRPC_ERROR_CODE_KEY, httpStatus: number): ErrorCode {
  for (const [errorCode, trpcCode] of Object.entries(TRPC_CODE_BY_ERROR_CODE)) {
    if (trpcCode === code) return errorCode as ErrorCode;
  }
  return httpStatus < 500 ? 'bad_request' : 'internal_error';
}

/** The DocevalsError a tRPC error carries, when its tRPC code is the one the table gives that error's code. */
export function docevalsErrorOf(error: TRPCError): DocevalsError | undefined {
  const cause = error.cause;
  return isDocevalsError(cause) && TRPC_CODE_BY_ERROR_CODE[cause.code] === error.code ? cause : undefined;
}

/**
 * Turns anything a procedure (or its input parsing, or `authenticate`) threw into the TRPCError the caller gets:
 * a DocevalsError by the table, with itself as `cause`; tRPC's own input validation failure as the same
 * `validation_error` the core raises; tRPC errors as they are; anything else an INTERNAL_SERVER_ERROR whose message
 * says nothing (the original stays in `cause` for the host's `onError`).
 */
export function toTRPCError(error: unknown): TRPCError {
  if (isDocevalsError(error)) {
    // publicMessage: a storage_error's cause (a file path, a host) stays in the host's log.
    const message = error.code === 'internal_error' ? INTERNAL_ERROR_MESSAGE : error.publicMessage;
    return new TRPCError({ code: TRPC_CODE_BY_ERROR_CODE[error.code] ?? 'INTERNAL_SERVER_ERROR', message, cause: error });
  }
  if (!(error instanceof TRPCError)) {
    return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_ERROR_MESSAGE, cause: error });
  }
  if (isDocevalsError(error.cause)) return docevalsErrorOf(error) ? error : toTRPCError(error.cause);
  if (error.code === 'BAD_REQUEST') {
    const issues = schemaIssuesOf(error.cause);
    if (issues) return toTRPCError(inputValidationError(issues.list, issues.total));
  }
  return error;
}

/** `[{path, message}]` of a failed zod (or any Standard Schema) parse; undefined for anything else. */
function schemaIssuesOf(cause: unknown): { list: ErrorIssue[]; total: number } | undefined {
  if (typeof cause !== 'object' || cause === null || !('issues' in cause) || !Array.isArray(cause.issues)) return undefined;
  const issues = cause.issues as Array<{ path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>; message?: unknown }>;
  // Only the first ones are converted (the core's cap): a body can hold thousands of issues.
  const list = issuesOf(
    issues.slice(0, 200).map((issue) => ({
      path: (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment)),
      message: typeof issue.message === 'string' ? issue.message : 'Invalid value',
    })),
  );
  return { list, total: issues.length };
}

/**
 * The validation error for issues found while parsing a procedure's input: the core's own `invalidRequest`, so a
 * caller cannot tell which of the two parses refused.
 */
const inputValidationError = (issues: ErrorIssue[], total: number): DocevalsError => invalidRequest(issues, total);
