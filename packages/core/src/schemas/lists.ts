import { z } from 'zod';
import { idParam } from './json.js';

/** Cursor pagination (docs/spec/service.md, Lists). `limit` arrives as a string in a query, so it is coerced. */
export const listQueryFields = {
  limit: z.coerce.number().int().min(1).max(100).default(10),
  order: z.enum(['asc', 'desc']).default('desc'),
  before: idParam.optional(),
  after: idParam.optional(),
};

export const listMetadataSchema = z.object({ before: z.string().nullable(), after: z.string().nullable() });
export type ListMetadata = z.infer<typeof listMetadataSchema>;

/** The schema of a list response: `{ data: [item...], list_metadata: { before, after } }`. */
export const listResultSchema = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), list_metadata: listMetadataSchema });

export interface ListResult<T> {
  data: T[];
  list_metadata: ListMetadata;
}

/** A deletion's answer. `success` repeats `deleted` for clients typed after the reference SDK (`{success, id}`). */
export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true), success: z.literal(true) });
export type Deleted = z.infer<typeof deletedSchema>;
