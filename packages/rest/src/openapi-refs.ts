/**
 * The generator writes a named schema with a description of its own as `allOf: [{$ref}, {description}]`; OpenAPI
 * 3.1 (JSON Schema 2020-12) allows the plain `{$ref, description}`, which renderers and generators read better.
 */
export function flattenAnnotatedRefs(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) flattenAnnotatedRefs(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  const allOf = record.allOf;
  if (Array.isArray(allOf) && allOf.length === 2 && isBareRef(allOf[0]) && isAnnotation(allOf[1])) {
    delete record.allOf;
    Object.assign(record, allOf[0], allOf[1]);
  }
  for (const value of Object.values(record)) flattenAnnotatedRefs(value);
}

const ANNOTATIONS = new Set(['description', 'default', 'examples', 'title', 'deprecated', 'readOnly', 'writeOnly']);
const isBareRef = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 1 && '$ref' in value;
const isAnnotation = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value).every((key) => ANNOTATIONS.has(key));
