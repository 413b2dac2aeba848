import type { JsonObject, JsonValue } from '../../json/assert-json.js';
import { coerceJson } from './coerce-value.js';
import { fillObject, hasFound } from './fill-fields.js';
import { normalizeLabel } from './labels.js';
import type { FieldNode, ObjectNode, PropertyNode } from './schema-fields.js';

/**
 * Fills the schema from a JSON document: keys matched like labels (`InvoiceNumber` meets `invoice_number`), at the
 * same level first, then anywhere below in nested objects (documents often wrap fields in `{"invoice": {...}}`).
 */
export function fillFromJson(root: ObjectNode, document: JsonValue): JsonObject {
  if (Array.isArray(document)) {
    // A top-level list is the rows of the schema's one list, when it has exactly one.
    const lists = root.properties.filter((p) => p.node.kind === 'array');
    return fillObject(root, (property) =>
      lists.length === 1 && property === lists[0] ? fillNode(property.node, document) : undefined,
    );
  }
  return fillObject(root, (property) => findProperty(property, document));
}

function findProperty(property: PropertyNode, container: JsonValue): JsonValue | undefined {
  const raw = lookup(container, property.labels);
  return raw === undefined ? undefined : fillNode(property.node, raw);
}

function fillNode(node: FieldNode, value: JsonValue): JsonValue | undefined {
  if (node.kind === 'object') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const filled = fillObject(node, (property) => findProperty(property, value));
    return hasFound(filled) ? filled : undefined;
  }
  if (node.kind === 'array') {
    const items = Array.isArray(value) ? value : typeof value === 'string' ? splitList(value) : [value];
    const out: JsonValue[] = [];
    for (const item of items) {
      const filled = fillNode(node.items, item);
      if (filled !== undefined) out.push(filled);
      else if (node.items.nullable && node.items.kind === 'scalar') out.push(null);
    }
    return out.length > 0 || Array.isArray(value) ? out : undefined;
  }
  return coerceJson(value, node);
}

function splitList(value: string): string[] {
  return value.split(/\s*[,;]\s*/).filter((s) => s !== '');
}

/** The value of the first key matching one of `labels`, breadth first through nested objects (not arrays). */
function lookup(container: JsonValue, labels: string[]): JsonValue | undefined {
  let level: JsonObject[] = isObject(container) ? [container] : [];
  for (let depth = 0; depth < 8 && level.length > 0; depth++) {
    const next: JsonObject[] = [];
    for (const object of level) {
      for (const [key, value] of Object.entries(object)) {
        if (labels.includes(normalizeLabel(key)) && value !== null) return value;
      }
      for (const value of Object.values(object)) if (isObject(value)) next.push(value);
    }
    level = next;
  }
  return undefined;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
