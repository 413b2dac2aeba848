/**
 * Typed errors of docevals. Every failure the library reports is a {@link DocevalsError} with a `code` from
 * {@link ERROR_CODES}; the REST and tRPC packages only translate codes to statuses, one table each.
 */

/** The fixed list of error codes. Transports map each to one status. */
export const ERROR_CODES = [
  'bad_request', // malformed request (broken JSON): REST 400
  'unauthorized', // no or unknown key: 401
  'not_found', // unknown object or route: 404 (another organization's object included)
  'method_not_allowed', // 405
  'request_timeout', // 408: the request body did not arrive within the host's body-read time
  'conflict', // id taken, schema_data_id change: 409
  'payload_too_large', // 413
  'unsupported_media_type', // 415
  'validation_error', // 422, with issues and their paths
  'rate_limited', // 429: a per-key request rate or a per-organization cap; `retry_after` seconds (REST: Retry-After)
  'extractor_error', // 502: a processor submit whose extraction failed
  'storage_error', // 503: the store is unreachable or refused
  'not_configured', // 501: a feature the host has not set up (organization secrets without a master key)
  'internal_error', // 500: a bug; never carries internals
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One problem with a request: `path` is dotted (`documents.0.mime_data.url`), `""` for the whole body. */
export interface ErrorIssue {
  path: string;
  message: string;
}

/**
 * The brand every {@link DocevalsError} carries: a registered symbol (`Symbol.for`), so it is the same in every copy
 * and build (ESM and CJS) of `@docevals/core` loaded in a process. {@link isDocevalsError}, `instanceof
 * DocevalsError` and both transports check it, not the class: an error thrown by a second copy of the core is still a
 * 404 or a 422, never a 500.
 */
export const DOCEVALS_ERROR_BRAND: unique symbol = Symbol.for('docevals.error');

/**
 * The one error type of docevals.
 *
 * @example
 * try { await docevals.evals.get(org, { evaluation_id: 'eval_x' }); }
 * catch (e) { if (isDocevalsError(e) && e.code === 'not_found') { ... } }
 */
export class DocevalsError extends Error {
  /** True for an error of any copy of `@docevals/core`: the brand, not the class (see {@link DOCEVALS_ERROR_BRAND}). */
  static [Symbol.hasInstance](value: unknown): boolean {
    return isDocevalsError(value);
  }

  override readonly name = 'DocevalsError';
  readonly [DOCEVALS_ERROR_BRAND] = true;
  readonly code: ErrorCode;
  readonly issues?: ErrorIssue[];
  /** The iteration the error is about, when one was kept (a failed iteration: 502 `extractor_error`). */
  readonly iteration_id?: string;
  /** `rate_limited`: seconds after which a retry may pass (REST sends it as `Retry-After`). */
  readonly retry_after?: number;

  constructor(
    code: ErrorCode,
    message: string,
    options: { issues?: ErrorIssue[]; cause?: unknown; iteration_id?: string; retry_after?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.issues && options.issues.length > 0) this.issues = options.issues;
    if (options.iteration_id !== undefined) this.iteration_id = options.iteration_id;
    if (options.retry_after !== undefined) this.retry_after = Math.max(1, Math.ceil(options.retry_after));
  }

  /**
   * The message a client may see. A `storage_error`'s message carries what the store said (file paths, host
   * names): transports send this instead, `The lowdb storage failed during files.get; the server logged the cause.`
   * when {@link storageError} built it, a generic sentence otherwise. The full message and `cause` are for the
   * host's log (docs/spec/limits.md, Errors).
   */
  get publicMessage(): string {
    if (this.code !== 'storage_error') return this.message;
    return PUBLIC_MESSAGES.get(this) ?? GENERIC_STORAGE_MESSAGE;
  }

  /**
   * The body every transport sends: `{ error: { code, message, issues?, iteration_id?, retry_after? } }`, with
   * {@link publicMessage}.
   */
  toJSON(): { error: { code: ErrorCode; message: string; issues?: ErrorIssue[]; iteration_id?: string; retry_after?: number } } {
    return {
      error: {
        code: this.code,
        message: this.publicMessage,
        ...(this.issues ? { issues: this.issues } : {}),
        ...(this.iteration_id !== undefined ? { iteration_id: this.iteration_id } : {}),
        ...(this.retry_after !== undefined ? { retry_after: this.retry_after } : {}),
      },
    };
  }
}

/** The client message of each storage error {@link storageError} built: adapter and operation, no cause. */
const PUBLIC_MESSAGES = new WeakMap<DocevalsError, string>();
const GENERIC_STORAGE_MESSAGE = 'The storage failed; the server logged the cause. Retry later.';

/**
 * Whether `error` is a {@link DocevalsError} of any copy or build of `@docevals/core` (it carries
 * {@link DOCEVALS_ERROR_BRAND} and a string `code`).
 */
export function isDocevalsError(error: unknown): error is DocevalsError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [DOCEVALS_ERROR_BRAND]?: unknown })[DOCEVALS_ERROR_BRAND] === true &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

/** A validation error listing every issue with its path. */
export function validationError(message: string, issues: ErrorIssue[] = []): DocevalsError {
  return new DocevalsError('validation_error', message, { issues });
}

/**
 * What every transport answers for an unexpected failure (a bug, a `TypeError`), REST's 500 and tRPC's
 * `INTERNAL_SERVER_ERROR` alike: nothing about the server. The failure itself goes to the host's `onError` (both
 * transports log it by default).
 */
export const INTERNAL_ERROR_MESSAGE = 'The server failed unexpectedly. The failure was logged; retry later or report it.';

/**
 * The `internal_error` a transport sends in place of an unexpected failure, with {@link INTERNAL_ERROR_MESSAGE}.
 *
 * @example
 * catch (error) { onError(error); return Response.json(internalError().toJSON(), { status: 500 }); }
 */
export function internalError(): DocevalsError {
  return new DocevalsError('internal_error', INTERNAL_ERROR_MESSAGE);
}

/** A not-found error: the same whether the object does not exist or belongs to another organization. */
export function notFound(kind: string, id: string): DocevalsError {
  return new DocevalsError('not_found', `No ${kind} with id "${id}" exists in this organization.`);
}

/**
 * Wraps a failure of a store as `storage_error`, naming the adapter and keeping the cause. The message copies the
 * cause's for the host (its log, in-process callers); clients get {@link DocevalsError.publicMessage}, which never
 * does: `The lowdb storage failed during files.get; the server logged the cause.` (an operation that is not a plain
 * name, such as `open of "/data"`, is cut to its first word there).
 *
 * @example
 * const error = storageError('redis', 'evaluations.get', new Error('connect ECONNREFUSED 10.0.0.7:6379'));
 * error.message;       // 'The redis storage failed during evaluations.get: connect ECONNREFUSED 10.0.0.7:6379'
 * error.publicMessage; // 'The redis storage failed during evaluations.get; the server logged the cause.'
 */
export function storageError(adapter: string, operation: string, cause: unknown): DocevalsError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const error = new DocevalsError('storage_error', `The ${adapter} storage failed during ${operation}: ${reason}`, { cause });
  const name = /^[\w.-]+$/.test(adapter) ? adapter : 'configured';
  const action = /^[\w.-]+$/.test(operation) ? operation : (/^[\w.-]+/.exec(operation)?.[0] ?? 'an operation');
  PUBLIC_MESSAGES.set(error, `The ${name} storage failed during ${action}; the server logged the cause.`);
  return error;
}

/** Joins a path of keys and indices with dots (`["documents", 0, "id"]` -> `documents.0.id`). */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((segment) => String(segment)).join('.');
}

/** A thrown value as an Error: itself when it is one, else an Error whose message is its text. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(typeof value === 'string' ? value : JSON.stringify(value));
}
