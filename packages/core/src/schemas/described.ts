import type { z } from 'zod';

declare const describedBrand: unique symbol;

/** A schema that carries its own description for the API reference (a type-level mark; nothing at run time). */
export interface Described {
  readonly [describedBrand]: true;
}

/**
 * `schema` with its description for the API reference, next to the type: the OpenAPI document reads it from the
 * schema's `.meta()`, and `@docevals/rest` needs no restatement of a field so described (its `documented()` lists
 * only the fields without one).
 *
 * @example
 * const labels = z.object({ name: described(z.string().nullable(), 'The iteration\'s name, or null.') });
 */
export function described<T extends z.ZodType>(schema: T, description: string): T & Described {
  return schema.meta({ description }) as T & Described;
}
