import { DocevalsError } from '../errors.js';

/** The `conflict` an insert raises when the organization already has a record with that id. */
export function idTaken(collection: string, id: string): DocevalsError {
  return new DocevalsError('conflict', `A record with id "${id}" already exists in ${collection} of this organization.`);
}

/** The `conflict` a batch insert raises when it names one id twice. */
export function idRepeated(collection: string, id: string): DocevalsError {
  return new DocevalsError('conflict', `The id "${id}" appears twice in one batch for ${collection}.`);
}

/**
 * What every call on a closed store rejects with, in every adapter: a `storage_error` that says so. `close()` itself
 * stays idempotent.
 */
export function storageClosed(adapter: string): DocevalsError {
  return new DocevalsError('storage_error', `The ${adapter} storage is closed; open a new one to go on.`);
}

/**
 * The `internal_error` of a batch whose records do not all share one organization and one parent: a caller bug,
 * refused before anything is written.
 */
export function mixedBatch(collection: string): DocevalsError {
  return new DocevalsError(
    'internal_error',
    `A batch for ${collection} must hold records of one organization and one parent.`,
  );
}
