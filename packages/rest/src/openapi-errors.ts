import { INTERNAL_ERROR_MESSAGE, unauthorizedError } from '@docevals/core';

/** Every error status an operation may answer, with what it means and an example body. */
export const ERRORS: Record<number, { name: string; description: string; code: string; message: string }> = {
  400: { name: 'BadRequest', description: 'The body is not JSON (`bad_request`).', code: 'bad_request', message: 'The request body is not valid JSON: Unexpected end of JSON input.' },
  401: {
    name: 'Unauthorized',
    description: 'No key, or an unknown key (`unauthorized`). Send it as `Api-Key: <key>` or `Authorization: Bearer <key>`.',
    code: 'unauthorized',
    message: unauthorizedError(false).message,
  },
  404: { name: 'NotFound', description: 'No such object in this organization: another organization\'s object is answered the same (`not_found`).', code: 'not_found', message: 'No evaluation "eval_invoices".' },
  408: { name: 'RequestTimeout', description: 'The body did not arrive within the host\'s body-read time, 60 s by default (`request_timeout`); the connection is closed.', code: 'request_timeout', message: 'The request body did not arrive within 60 s, this server\'s limit; send it faster or smaller.' },
  409: { name: 'Conflict', description: 'The id is taken, or a json_schema changes the structure (schema_data_id) of an evaluation that has iterations (`conflict`).', code: 'conflict', message: 'The id "eval_invoices" is taken.' },
  413: { name: 'PayloadTooLarge', description: 'The body is over the host\'s limit, 32 MiB by default (`payload_too_large`).', code: 'payload_too_large', message: 'The request body is larger than 33554432 bytes.' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not `application/json` (`unsupported_media_type`).', code: 'unsupported_media_type', message: 'The request body must be application/json.' },
  422: {
    name: 'ValidationError',
    description: 'The input is invalid: `issues` lists every problem with its path (`validation_error`).',
    code: 'validation_error',
    message: 'Invalid request: name: name must not be empty.',
  },
  429: {
    name: 'RateLimited',
    description:
      'Too many requests for this key, or the organization already has as many queued and running iterations as ' +
      'the host allows (`rate_limited`); the `Retry-After` header and `retry_after` say when to retry.',
    code: 'rate_limited',
    message: 'This organization already has 20 queued or running iterations; retry once one has finished.',
  },
  500: { name: 'InternalError', description: 'An unexpected failure, logged by the host; the body says nothing more (`internal_error`).', code: 'internal_error', message: INTERNAL_ERROR_MESSAGE },
  502: { name: 'ExtractorError', description: 'The extraction failed: the model\'s provider refused, timed out or answered invalid data (`extractor_error`).', code: 'extractor_error', message: 'The extraction failed: the provider answered 503.' },
  501: {
    name: 'NotConfigured',
    description: 'A feature this server has not set up (`not_configured`): organization secrets without a master key. The message says how to configure it.',
    code: 'not_configured',
    message: 'Organization secrets are not configured on this server: it has no master key to encrypt them with. ...',
  },
  503: { name: 'StorageError', description: 'The store is unreachable or refused (`storage_error`); retry later.', code: 'storage_error', message: 'The store is unavailable; retry later.' },
};

/** The shared response component of an error status. */
export function errorRef(status: number) {
  const error = ERRORS[status];
  if (!error) throw new Error(`createOpenApiDocument: no error response for status ${status}.`);
  return { $ref: `#/components/responses/${error.name}` };
}
