import { z } from '@hono/zod-openapi';

/**
 * The schemas of the OpenAPI document: the core's zod schemas with a description on every property, named
 * components (`.openapi('Name')`) for every resource and shared part, and the defaults and formats a reader needs.
 * They only describe: the core validates every input itself. Each one is the core schema extended property by
 * property, and {@link documented} takes a description for every key of the core schema (a missing one does not
 * compile), so a field added to the core cannot reach the document undescribed.
 */

/** A description of the core's property, or a replacement schema that already carries its own. */
type PropertyDoc = string | z.ZodType;

/**
 * `schema` with some properties described again or replaced (a named component, a nullable `$ref`, a date-time
 * format). Every other property keeps the core's description (`described()` next to the type); a test
 * (openapi-readable) fails on any property of a component left without one.
 */
export function documented<T extends z.ZodObject>(
  schema: T,
  fields: { [K in keyof T['shape']]?: PropertyDoc },
): T {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, doc] of Object.entries(fields) as Array<[string, PropertyDoc]>) {
    if (!(key in schema.shape)) throw new Error(`documented: "${key}" is not a property of the schema.`);
    shape[key] = typeof doc === 'string' ? (schema.shape[key] as z.ZodType).meta({ description: doc }) : doc;
  }
  // safeExtend types the result with the replaced shape; the replacements describe the same values (a description,
  // a `$ref` to the same schema), so the result stands for T, which its callers pass on as the core's type.
  const result = schema.safeExtend(shape) as unknown as T;
  RESTATED.set(result, schema);
  return result;
}

/** The core schema each {@link documented} restatement restates. */
const RESTATED = new WeakMap<z.ZodType, z.ZodType>();
/** The named component of each core schema that has one (`named(name, documented(coreSchema, ...))`). */
const NAMED_BY_CORE = new Map<z.ZodType, z.ZodType>();

/**
 * The named component restating a core schema, if there is one: an operation whose answer is a core schema that
 * already has a component (a new operation answering `evaluationOverviewSchema`) shows the component, with no entry
 * of its own in openapi-operations.ts.
 */
export const componentOf = (schema: z.ZodType): z.ZodType | undefined => NAMED_BY_CORE.get(schema);

/**
 * A named schema or null. (`.nullable()` on a named schema comes out of the generator as the bare `$ref`, losing
 * the null, so the union is spelled out.)
 */
export const orNull = (schema: z.ZodType, description: string) => z.union([schema, z.null()]).meta({ description });

/** Every named schema, in the order they are defined (a part before what holds it): openapi-document.ts registers them. */
export const NAMED_SCHEMAS: Array<[name: string, schema: z.ZodType]> = [];

/**
 * `schema` as the component `name`. Components are registered before any path, so a use that adds its own
 * description ({@link ref}) is written as `{$ref, description}` instead of becoming the component itself.
 */
export function named<T extends z.ZodType>(name: string, schema: T, meta?: { description: string; examples?: unknown[] }): T {
  const core = RESTATED.get(schema);
  const { description, examples } = meta ?? (core && z.globalRegistry.get(core)) ?? {};
  if (!description) throw new Error(`named: "${name}" has no description (the core schema's .meta({ description })).`);
  const result = schema.openapi(name, { description, ...(Array.isArray(examples) ? { examples } : {}) }) as T;
  NAMED_SCHEMAS.push([name, result]);
  if (core && !NAMED_BY_CORE.has(core)) NAMED_BY_CORE.set(core, result);
  return result;
}

/** A named schema with a description (and a default) of its own where it is used. */
export const ref = (schema: z.ZodType, description: string, defaultValue?: unknown) =>
  schema.meta({ description, ...(defaultValue === undefined ? {} : { default: defaultValue }) });

export const dateTime = (description: string) => z.string().meta({ format: 'date-time', description, examples: ['2026-11-23T19:23:59.958Z'] });
