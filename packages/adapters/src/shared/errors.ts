import { DocevalsError } from '@docevals/core';

/** The `conflict` an insert raises when the organization already has a record with that id. */
export function idTaken(collection: string, id: string): DocevalsError {
  return new DocevalsError('conflict', `A record with id "${id}" already exists in ${collection} of this organization.`);
}
