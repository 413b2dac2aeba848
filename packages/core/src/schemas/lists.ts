import { z } from 'zod';
import { described } from './described.js';
import { idParam } from './json.js';

/** Cursor pagination (docs/spec/service.md, Lists). `limit` arrives as a string in a query, so it is coerced. */
export const listQueryFields = {
  limit: described(z.coerce.number().int().min(1).max(100).default(10), 'How many items a page holds, 1 to 100.'),
  order: described(z.enum(['asc', 'desc']).default('desc'), 'By `updated_at` then id: `desc` (newest first, the default) or `asc`.'),
  before: described(idParam.optional(), 'A cursor: the `list_metadata.before` of the current page, for the page before it.'),
  after: described(idParam.optional(), 'A cursor: the `list_metadata.after` of the current page, for the page after it.'),
};

export const listMetadataSchema = z.object({
  before: described(z.string().nullable(), 'Pass as `before` to get the page before this one; null on the first page.'),
  after: described(z.string().nullable(), 'Pass as `after` to get the next page; null on the last page.'),
}).meta({ description: 'The cursors of a page: ids of the first and last item, where more items exist.' });
export type ListMetadata = z.infer<typeof listMetadataSchema>;

/** The schema of a list response: `{ data: [item...], list_metadata: { before, after } }`. */
export const listResultSchema = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), list_metadata: listMetadataSchema });

export interface ListResult<T> {
  data: T[];
  list_metadata: ListMetadata;
}

/** A deletion's answer. `success` repeats `deleted` for clients typed after the reference SDK (`{success, id}`). */
export const deletedSchema = z.object({
  id: described(z.string(), 'The id of the deleted object.'),
  deleted: described(z.literal(true), 'Always true.'),
  success: described(z.literal(true), 'Always true: `deleted` again, for clients typed after the reference SDK (`{success, id}`).'),
}).meta({ description: 'A deletion\'s answer.' });
export type Deleted = z.infer<typeof deletedSchema>;
