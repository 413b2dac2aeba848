import { z } from 'zod';

/** The fields of a query schema that are lists (`document_ids`), optional or defaulted ones included. */
export function listFields(schema: z.ZodObject | undefined): string[] {
  if (!schema) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => unwrap(field) instanceof z.ZodArray)
    .map(([name]) => name);
}

function unwrap(field: z.ZodType): z.ZodType {
  let current = field;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault || current instanceof z.ZodNullable) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/**
 * The list fields of a request's query, each with every value: comma-separated (`document_ids=a,b`, the form the
 * OpenAPI document declares), repeated (`document_ids=a&document_ids=b`) or both. Values are not trimmed or dropped:
 * `document_ids=a,,b` gives an empty id, which the core refuses at its index. Ids never hold a comma (document ids
 * are `file_` and hex digits). A list field absent from the query is absent here.
 *
 * @example
 * listValues({ document_ids: ['a,b', 'c'], limit: ['5'] }, ['document_ids']); // { document_ids: ['a', 'b', 'c'] }
 */
export function listValues(queries: Readonly<Record<string, readonly string[]>>, lists: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of lists) {
    const values = Object.hasOwn(queries, name) ? queries[name]! : [];
    if (values.length > 0) out[name] = values.flatMap((value) => value.split(','));
  }
  return out;
}
