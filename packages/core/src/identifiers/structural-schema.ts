import { assertJson, type JsonValue } from '../json/assert-json.js';

/** Keys that annotate a schema (prompts, docs) rather than shape the data; compared lowercased. */
const DROPPED_KEYS = new Set(['description', 'default', 'title', 'required', 'examples', 'deprecated', 'readonly', 'writeonly']);
/** Keywords whose value maps names to subschemas: the names are data, the subschemas are cleaned. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value is one subschema. */
const SCHEMA_SINGLES = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];

/**
 * The part of a JSON schema that shapes the data (docs/spec/metrics.md section 6): descriptions, titles, defaults, examples,
 * `required`, `deprecated`, `readOnly`/`writeOnly`, `x-` fields, keys holding `{}` and the empty key are dropped,
 * recursively through every subschema keyword. Boolean schemas stay as they are; anything else that is not an object
 * is kept unchanged. The input is not modified.
 *
 * @example
 * structuralSchema({ type: 'object', title: 'Invoice', properties: { total: { type: 'number', description: 'x' } } });
 * // { type: 'object', properties: { total: { type: 'number' } } }
 */
export function structuralSchema(schema: JsonValue): JsonValue {
  assertJson(schema, 'schema');
  return clean(schema);
}

const isObject = (v: JsonValue): v is { [key: string]: JsonValue } => v !== null && typeof v === 'object' && !Array.isArray(v);

function clean(schema: JsonValue): JsonValue {
  if (!isObject(schema)) return schema;
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(schema)) {
    const value = schema[key]!;
    const lower = key.toLowerCase();
    if (key === '' || DROPPED_KEYS.has(lower) || lower.startsWith('x-')) continue;
    // Only a key that held {} before cleaning goes; a subschema that becomes {} by cleaning stays.
    if (isObject(value) && Object.keys(value).length === 0) continue;
    define(out, key, cleanKeyword(key, value));
  }
  return out;
}

function cleanKeyword(key: string, value: JsonValue): JsonValue {
  if (SCHEMA_MAPS.includes(key) && isObject(value)) {
    const map: { [key: string]: JsonValue } = {};
    for (const name of Object.keys(value)) define(map, name, clean(value[name]!));
    return map;
  }
  if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) return value.map(clean);
  if (SCHEMA_SINGLES.includes(key)) return clean(value);
  return value;
}

function define(target: { [key: string]: JsonValue }, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
