import type { ErrorObject } from 'ajv/dist/2020.js';
import { validationError, type ErrorIssue } from '../errors.js';
import type { JsonObject, JsonValue } from '../json/assert-json.js';
import { compileJsonSchema } from './compile.js';

/** Keywords whose value maps names (property names, definition names) to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is data, not a schema: left as they are. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);
/** Keywords that make keys mandatory: dropped, as ground truth may be partial. */
const PRESENCE_KEYWORDS = new Set(['required', 'dependentRequired']);

/**
 * The schema with `required` (and `dependentRequired`) removed from every subschema, so that a partial annotation
 * passes while every value it does hold is still checked (types, enums, formats, closed objects, items...).
 * Properties that happen to be named `required` are kept: only the keyword goes.
 *
 * @example
 * withoutRequired({ type: 'object', required: ['total'], properties: { total: { type: 'number' } } });
 * // { type: 'object', properties: { total: { type: 'number' } } }
 */
export function withoutRequired(schema: JsonObject): JsonObject {
  return strip(schema, 0) as JsonObject;
}

function strip(node: JsonValue, depth: number): JsonValue {
  if (depth > 256 || node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((item) => strip(item, depth + 1));
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (PRESENCE_KEYWORDS.has(key) && (Array.isArray(value) || (key === 'dependentRequired' && isObject(value)))) continue;
    let next: JsonValue;
    if (DATA_KEYWORDS.has(key)) next = value;
    else if (SCHEMA_MAPS.has(key) && isObject(value)) {
      const map: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) define(map, name, strip(sub, depth + 1));
      next = map;
    } else next = strip(value, depth + 1);
    define(out, key, next);
  }
  return out;
}

/** Checks annotations against one evaluation schema; compiled once, used for every annotation of a request. */
export type AnnotationValidator = (annotation: JsonObject, path: string) => ErrorIssue[];

/**
 * Compiles the evaluation's JSON schema for checking annotations (ground truth): `required` is not enforced (see
 * {@link withoutRequired}); everything else is. Each issue's path is dotted under `path`
 * (`documents.0.annotation.total`).
 *
 * @example
 * const check = annotationValidator({ type: 'object', properties: { total: { type: 'number' } } });
 * check({ total: 'abc' }, 'annotation'); // [{ path: 'annotation.total', message: 'must be number' }]
 */
export function annotationValidator(jsonSchema: JsonObject): AnnotationValidator {
  const validate = compileJsonSchema(withoutRequired(jsonSchema), 'json_schema');
  return (annotation, path) => (validate(annotation) ? [] : toIssues(validate.errors, path));
}

/**
 * Throws one 422 `validation_error` listing every annotation that does not match the evaluation's schema, each
 * issue at its path; does nothing when `validate` is false (the request's `"validate": false`) or there is nothing
 * to check.
 *
 * @example
 * assertAnnotations(evaluation.json_schema, [{ annotation: { total: 'abc' }, path: 'annotation' }], true);
 * // throws validation_error, issues [{ path: 'annotation.total', message: 'must be number' }]
 */
export function assertAnnotations(
  jsonSchema: JsonObject,
  annotations: ReadonlyArray<{ annotation: JsonObject; path: string }>,
  validate: boolean | undefined,
): void {
  if (validate === false || annotations.length === 0) return;
  const check = annotationValidator(jsonSchema);
  const issues = annotations.flatMap(({ annotation, path }) => check(annotation, path));
  if (issues.length === 0) return;
  const shown = issues
    .slice(0, 3)
    .map((i) => `${i.path}: ${i.message}`)
    .join('; ');
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  throw validationError(
    `The annotation does not match the evaluation's JSON schema: ${shown}${more}. Fix the values, or send "validate": false to store it as it is.`,
    issues,
  );
}

function toIssues(errors: ErrorObject[] | null | undefined, path: string): ErrorIssue[] {
  if (!errors || errors.length === 0) return [{ path, message: 'does not match the JSON schema' }];
  const seen = new Set<string>();
  const issues: ErrorIssue[] = [];
  for (const error of errors) {
    const segments = pointerSegments(error.instancePath);
    const extra = error.keyword === 'additionalProperties' ? (error.params as { additionalProperty?: string }).additionalProperty : undefined;
    if (extra !== undefined) segments.push(extra);
    const issuePath = [path, ...segments].filter((s) => s !== '').join('.');
    const message = extra !== undefined ? 'is not a property of the schema (additionalProperties is false)' : describe(error);
    const key = `${issuePath}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: issuePath, message });
  }
  return issues;
}

function describe(error: ErrorObject): string {
  const message = error.message ?? 'is invalid';
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
    if (Array.isArray(allowed)) return `${message}: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return message;
}

/** `/items/0/a~1b` -> ['items', '0', 'a/b'] (RFC 6901 unescaping). */
function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Assigns without invoking the `__proto__` setter. */
function define(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
