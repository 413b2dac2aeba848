import { Ajv2020, type ErrorObject, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { RE2JS } from 're2js';
import { validationError } from '../errors.js';
import type { JsonObject } from '../json/assert-json.js';

// ajv-formats is CJS with a default export; under some interop settings it arrives wrapped in `{ default }`.
type AddFormats = typeof addFormatsImport;
const addFormats: AddFormats = (addFormatsImport as AddFormats & { default?: AddFormats }).default ?? addFormatsImport;

/**
 * `pattern` and `patternProperties` run on RE2 (re2js, pure JavaScript): matching is linear in the input, so no
 * schema can block the event loop with a catastrophic pattern such as `^(a+)+$` (docs/spec/limits.md). RE2 has no
 * lookaround and no backreferences: a schema using them does not compile (a 422 naming the pattern).
 */
const re2RegExp = Object.assign(
  (pattern: string) => {
    const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    return { test: (input: string) => re.test(input) };
  },
  { code: 'docevalsRe2' },
);

const BASE_OPTIONS: Options = {
  // strict: false — unknown keywords such as `X-ReasoningPrompt` are prompts, not errors (docs/spec/service.md).
  strict: false,
  allErrors: true,
  validateFormats: true,
  // A schema property named `toString` or `constructor` is checked like any other.
  ownProperties: true,
  code: { regExp: re2RegExp },
};

/**
 * Checks schemas against the 2020-12 meta-schema. It only validates: it never adds a schema, so nothing one caller
 * sends (a nested `$id`) stays in it.
 */
const metaAjv = new Ajv2020({ ...BASE_OPTIONS });
addFormats(metaAjv);

/**
 * A fresh Ajv for one compile: nested `$id`s a schema registers live and die with it, so one organization's
 * schema can never resolve another's `$ref` (and a stored processor compiles the same after a restart). Without its
 * own meta-schemas (the shared {@link metaAjv} validated the schema already), a compile costs a few milliseconds.
 */
function isolatedAjv(): Ajv2020 {
  const ajv = new Ajv2020({ ...BASE_OPTIONS, meta: false, validateSchema: false });
  addFormats(ajv);
  return ajv;
}

const cache = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 256;
/**
 * The validator of a schema object already compiled, by identity: a run compiles its iteration's schema once per call
 * of the runner (a queue worker: once per document), and the text key costs a `JSON.stringify` of the whole schema
 * each time. Schemas are values nobody edits in place (stored records, parsed inputs), so an object seen once keeps
 * its validator; a new object (another read of the same record) goes through the text cache.
 */
const byObject = new WeakMap<JsonObject, ValidateFunction>();

/**
 * Compiles a JSON Schema (draft 2020-12, Ajv with `strict: false`, `ownProperties: true`, ajv-formats, and RE2 for
 * `pattern`) in isolation: every compile has its own Ajv, so no `$id` it registers is visible to another. A schema
 * that does not compile is a `validation_error` at `path` carrying Ajv's message. Compiled validators are cached by
 * the schema's JSON (256 of them): the same schema text always compiles to the same validator, whoever sends it.
 *
 * @example
 * const validate = compileJsonSchema({ type: 'object', properties: { total: { type: 'number' } } });
 * validate({ total: 3 }); // true
 */
export function compileJsonSchema(schema: JsonObject, path = 'json_schema'): ValidateFunction {
  const seen = byObject.get(schema);
  if (seen) return seen;
  const validate = compileByText(schema, path);
  byObject.set(schema, validate);
  return validate;
}

function compileByText(schema: JsonObject, path: string): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) {
    // Least recently used goes first: move the hit to the end.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  let validate: ValidateFunction;
  try {
    if (!metaAjv.validateSchema(schema)) throw new Error(metaAjv.errorsText(metaAjv.errors));
    validate = isolatedAjv().compile(schema);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw validationError(`json_schema is not a valid JSON Schema (draft 2020-12): ${message}`, [
      { path, message },
    ]);
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
