import type { JsonObject, JsonValue } from '../../json/assert-json.js';
import type { ArrayNode, FieldNode, ObjectNode, PropertyNode } from './schema-fields.js';

/**
 * What to write for a property nothing was found for, so that the output conforms to the schema where it can:
 * null when the schema allows null or the property is required (a required non-nullable field then fails the
 * schema check, which names it), nothing when the property is optional and null is not allowed.
 * An object nothing was found in is null when nullable, else its shape with the same rule inside.
 */
export function missingValue(property: PropertyNode): JsonValue | undefined {
  const node = property.node;
  if (node.nullable) return null;
  if (!property.required) return undefined;
  if (node.kind === 'array') return [];
  if (node.kind === 'object') return emptyObject(node);
  return null;
}

/** The object every field of which was not found. */
export function emptyObject(node: ObjectNode): JsonObject {
  const out: JsonObject = {};
  for (const property of node.properties) {
    const value = missingValue(property);
    if (value !== undefined) out[property.key] = value;
  }
  return out;
}

/** Whether any leaf of a filled value was found (is not null and not an empty container). */
export function hasFound(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.values(value).some(hasFound);
  return true;
}

/** Fills an object node property by property with `find`, applying {@link missingValue} to the misses. */
export function fillObject(
  node: ObjectNode,
  find: (property: PropertyNode) => JsonValue | undefined,
): JsonObject {
  const out: JsonObject = {};
  for (const property of node.properties) {
    let value = find(property);
    if (value !== undefined && property.node.kind === 'object' && !hasFound(value) && property.node.nullable) value = null;
    if (value === undefined) value = missingValue(property);
    if (value !== undefined) out[property.key] = value;
  }
  return out;
}

export function isArrayOfObjects(node: FieldNode): node is ArrayNode & { items: ObjectNode } {
  return node.kind === 'array' && node.items.kind === 'object';
}
