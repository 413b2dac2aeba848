import type { JsonObject, JsonValue } from '../../json/assert-json.js';
import { normalizeLabel } from './labels.js';

/** What the local-rules extractor looks for, read from a JSON schema. */
export type FieldNode = ObjectNode | ArrayNode | ScalarNode;

export interface ObjectNode {
  kind: 'object';
  nullable: boolean;
  properties: PropertyNode[];
}

export interface PropertyNode {
  key: string;
  /** Normalized labels: the property name, its `title` and `description` (see {@link normalizeLabel}). */
  labels: string[];
  required: boolean;
  node: FieldNode;
}

export interface ArrayNode {
  kind: 'array';
  nullable: boolean;
  items: FieldNode;
  /** The schema's `maxItems`, when it is a non-negative integer. */
  maxItems?: number;
}

export type ScalarType = 'string' | 'number' | 'integer' | 'boolean';

export interface ScalarNode {
  kind: 'scalar';
  nullable: boolean;
  /** Types to coerce to, in the order tried; empty when the schema does not say (kept as text). */
  types: ScalarType[];
  format?: string;
  enum?: JsonValue[];
}

// $ref chains and recursive schemas stop here: deeper fields are not looked for.
const MAX_DEPTH = 16;
// A recursive schema with several self-references would unfold exponentially up to MAX_DEPTH: cap the fields read.
const MAX_FIELDS = 5_000;

/**
 * Reads the fields of a JSON schema: `properties` (nested objects too), `items` (arrays of objects are tables),
 * local `$ref`s to `$defs` / `definitions`, and `anyOf` / `oneOf` with a null branch (nullable fields).
 *
 * @example
 * readSchemaFields({ type: 'object', properties: { total: { type: ['number', 'null'] } } });
 */
export function readSchemaFields(schema: JsonObject): FieldNode {
  return readNode(schema, { root: schema, budget: MAX_FIELDS }, 0);
}

interface ReadContext {
  root: JsonObject;
  budget: number;
}

function readNode(schema: JsonValue, context: ReadContext, depth: number): FieldNode {
  const root = context.root;
  const resolved = resolve(schema, root, depth);
  if (resolved === null || depth > MAX_DEPTH || --context.budget < 0) return { kind: 'scalar', nullable: true, types: [] };
  const { node: s, nullable: branchNullable } = resolved;
  const types = typeList(s);
  const nullable = branchNullable || types.includes('null') || (Array.isArray(s.enum) && s.enum.includes(null));
  if (types.includes('object') || (types.length === 0 && isObject(s.properties))) {
    const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
    const props = isObject(s.properties) ? s.properties : {};
    return {
      kind: 'object',
      nullable,
      properties: Object.entries(props).map(([key, sub]) => ({
        key,
        labels: labelsOf(key, resolve(sub, root, depth + 1)?.node ?? {}, sub),
        required: required.has(key),
        node: readNode(sub, context, depth + 1),
      })),
    };
  }
  if (types.includes('array') || (types.length === 0 && s.items !== undefined)) {
    const maxItems = typeof s.maxItems === 'number' && Number.isInteger(s.maxItems) && s.maxItems >= 0 ? s.maxItems : undefined;
    return { kind: 'array', nullable, items: readNode(s.items ?? {}, context, depth + 1), ...(maxItems !== undefined ? { maxItems } : {}) };
  }
  const scalarTypes = types.filter((t): t is ScalarType => ['string', 'number', 'integer', 'boolean'].includes(t));
  return {
    kind: 'scalar',
    nullable: nullable || types.length === 0,
    types: scalarTypes,
    ...(typeof s.format === 'string' ? { format: s.format } : {}),
    ...(Array.isArray(s.enum) ? { enum: s.enum } : {}),
  };
}

/** Follows `$ref`s and unwraps `anyOf`/`oneOf`/`allOf` of one schema plus null; null when it cannot be read. */
function resolve(schema: JsonValue, root: JsonObject, depth: number): { node: JsonObject; nullable: boolean } | null {
  let node = schema;
  let nullable = false;
  for (let hops = 0; hops < MAX_DEPTH - depth && isObject(node); hops++) {
    if (typeof node.$ref === 'string') {
      const target = followRef(node.$ref, root);
      if (!target) return null;
      // Sibling keywords of $ref (a description, a nullable type) still apply: keep them over the target.
      const { $ref: _ref, ...siblings } = node;
      node = { ...target, ...siblings };
      continue;
    }
    const branches = (node.anyOf ?? node.oneOf ?? (Array.isArray(node.allOf) && node.allOf.length === 1 ? node.allOf : undefined)) as
      | JsonValue[]
      | undefined;
    if (Array.isArray(branches)) {
      const nonNull = branches.filter((b) => !(isObject(b) && b.type === 'null'));
      if (nonNull.length < branches.length) nullable = true;
      if (nonNull.length !== 1) return { node: { ...node, anyOf: null, oneOf: null, allOf: null }, nullable: true };
      const { anyOf: _a, oneOf: _o, allOf: _l, ...rest } = node;
      node = { ...(nonNull[0] as JsonObject), ...rest };
      continue;
    }
    return { node, nullable };
  }
  return isObject(node) ? { node, nullable } : null;
}

function followRef(ref: string, root: JsonObject): JsonObject | null {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return ref === '#' ? root : null;
  const defs = root[match[1]!];
  const name = match[2]!.replace(/~1/g, '/').replace(/~0/g, '~');
  const target = isObject(defs) ? defs[name] : undefined;
  return isObject(target) ? target : null;
}

function typeList(s: JsonObject): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === 'string');
  if (Array.isArray(s.enum)) {
    const kinds = new Set(s.enum.map((v) => (v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v)));
    return [...kinds];
  }
  return [];
}

function labelsOf(key: string, resolved: JsonObject, raw: JsonValue): string[] {
  const texts = [key];
  for (const source of [isObject(raw) ? raw : {}, resolved]) {
    if (typeof source.title === 'string') texts.push(source.title);
    if (typeof source.description === 'string' && source.description.length <= 80) texts.push(source.description);
  }
  return [...new Set(texts.map(normalizeLabel).filter((l) => l !== ''))];
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
