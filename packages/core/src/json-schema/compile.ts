import { Ajv2020, type ValidateFunction, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { validationError } from '../errors.js';
import type { JsonObject } from '../json/assert-json.js';

// ajv-formats is CJS with a default export; under some interop settings it arrives wrapped.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ??
  addFormatsImport) as typeof addFormatsImport;

function createAjv(): Ajv2020 {
  // strict: false — unknown keywords such as `X-ReasoningPrompt` are prompts, not errors (docs/spec/service.md).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  return ajv;
}

const ajv = createAjv();
const cache = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 256;

/**
 * Compiles a JSON Schema (draft 2020-12, Ajv with `strict: false` and ajv-formats). A schema that does not compile
 * is a `validation_error` at `path` carrying Ajv's message.
 *
 * @example
 * const validate = compileJsonSchema({ type: 'object', properties: { total: { type: 'number' } } });
 * validate({ total: 3 }); // true
 */
export function compileJsonSchema(schema: JsonObject, path = 'json_schema'): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw validationError(`json_schema is not a valid JSON Schema (draft 2020-12): ${message}`, [
      { path, message },
    ]);
  } finally {
    // Ajv keeps every compiled schema (and its $id) by default; docevals schemas are per request.
    ajv.removeSchema(schema);
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, validate);
  return validate;
}

/** Ajv's errors as one readable line: `/total must be number; /items/0 must have required property 'price'`. */
export function describeSchemaErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'the output does not match the JSON schema';
  return errors.map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
}
