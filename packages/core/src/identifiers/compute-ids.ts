import { blake2b } from '@noble/hashes/blake2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { validationError } from '../errors.js';
import type { JsonValue } from '../json/assert-json.js';
import { canonicalJson } from './canonical-json.js';
import { structuralSchema } from './structural-schema.js';

/** BLAKE2b with an 8-byte digest as a parameter of the hash (not a truncation of a longer one), in hex. */
function hash64(bytes: Uint8Array): string {
  return bytesToHex(blake2b(bytes, { dkLen: 8 }));
}

const encoder = new TextEncoder();

/**
 * `file_` + BLAKE2b-64 of a file's raw bytes (the data URL's payload after base64 decoding).
 *
 * @example
 * computeFileId(new TextEncoder().encode('hello')); // 'file_' + 16 hex digits
 */
export function computeFileId(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) {
    throw validationError('bytes: a Uint8Array is required.', [{ path: 'bytes', message: 'not a Uint8Array' }]);
  }
  return `file_${hash64(bytes)}`;
}

/**
 * `sch_id_` + BLAKE2b-64 of the schema's canonical JSON: changes with any change of the schema, prompts included.
 *
 * @example
 * computeSchemaId({ type: 'object', properties: {} }); // 'sch_id_' + 16 hex digits
 */
export function computeSchemaId(schema: JsonValue): string {
  return `sch_id_${hash64(encoder.encode(canonicalJson(schema)))}`;
}

/**
 * `sch_data_id_` + BLAKE2b-64 of the canonical JSON of the structural schema: the same for two schemas that differ
 * only in descriptions, titles, defaults, examples, `x-` fields or `required`.
 *
 * @example
 * computeSchemaDataId({ type: 'string', description: 'a' }) === computeSchemaDataId({ type: 'string' }); // true
 */
export function computeSchemaDataId(schema: JsonValue): string {
  return `sch_data_id_${hash64(encoder.encode(canonicalJson(structuralSchema(schema))))}`;
}
