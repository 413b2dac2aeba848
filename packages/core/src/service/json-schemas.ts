import { computeSchemaDataId, computeSchemaId } from '../identifiers/index.js';
import { DocevalsError } from '../errors.js';
import type { JsonObject } from '../json/assert-json.js';
import { compileJsonSchema } from '../json-schema/compile.js';
import { invalidRequest } from './validate.js';

export interface SchemaIds {
  schema_id: string;
  schema_data_id: string;
}

/**
 * Checks a json_schema (size, then Ajv 2020-12 compilation) and computes its ids. Depth and JSON-ness were checked
 * by the input schema already, so serializing it here is safe.
 */
export function checkJsonSchema(schema: JsonObject, path: string, maxBytes: number): SchemaIds {
  const size = new TextEncoder().encode(JSON.stringify(schema)).byteLength;
  if (size > maxBytes) {
    throw invalidRequest([{ path, message: `the JSON schema is ${size} bytes; the limit is ${maxBytes}` }]);
  }
  compileJsonSchema(schema, path);
  return { schema_id: computeSchemaId(schema), schema_data_id: computeSchemaDataId(schema) };
}

/** 409: an iteration (or an update) whose schema has another structure than the evaluation's (docs/spec/service.md). */
export function schemaStructureConflict(current: string, proposed: string, what: string): DocevalsError {
  return new DocevalsError(
    'conflict',
    `${what}: its schema_data_id would be ${proposed}, but the evaluation's is ${current}. Only prompts ` +
      '(descriptions, titles, x- fields) may change once an evaluation has iterations; keep the structure, or ' +
      'create a new evaluation.',
  );
}
