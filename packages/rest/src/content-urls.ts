import { z } from 'zod';

/** Puts the document summaries' content URLs of one answer under a mount point (`''`: the answer as it is). */
export type ContentUrlRewrite = <T>(answer: T, prefix: string) => T;

type Rewrite = (value: unknown, prefix: string) => unknown;

/**
 * The rewrite of the answers of `output`: every `summary` (a document summary) it holds, found by walking the schema
 * (not the answer: an annotation that happens to hold a `mime_data` is the user's data and stays as it is), gets its
 * `mime_data.url` under the API's mount point. The service answers the path of a document's content relative to
 * where the REST API is mounted (`/v1/evals/{id}/documents/{id}/content`); a REST API mounted under `/evals` answers
 * `/evals/v1/...`, a URL the caller can fetch as it is (as the `Location` of a background run). Data URLs (whole
 * documents) are left alone. Objects are copied where a URL changes, never modified: the service may hold them.
 * Null when `output` holds no summary.
 *
 * @example
 * const rewrite = contentUrlRewrite(z.object({ data: z.array(documentSummarySchema) }), documentSummarySchema)!;
 * rewrite({ data: [{ mime_data: { filename: 'a.txt', url: '/v1/evals/e/documents/d/content' } }] }, '/evals');
 * // { data: [{ mime_data: { filename: 'a.txt', url: '/evals/v1/evals/e/documents/d/content' } }] }
 */
export function contentUrlRewrite(output: z.ZodType, summary: z.ZodType): ContentUrlRewrite | null {
  const rewrite = compile(output, summary, 0);
  if (!rewrite) return null;
  return <T>(answer: T, prefix: string) => (prefix === '' ? answer : (rewrite(answer, prefix) as T));
}

function compile(schema: z.ZodType, summary: z.ZodType, depth: number): Rewrite | null {
  if (schema === summary) return underPrefix;
  if (depth > 8) return null;
  const inner = (s: unknown) => compile(s as z.ZodType, summary, depth + 1);
  if (schema instanceof z.ZodObject) {
    const fields = Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, s]) => {
      const r = inner(s);
      return r ? [[key, r] as const] : [];
    });
    if (fields.length === 0) return null;
    return (value, prefix) => {
      if (value === null || typeof value !== 'object') return value;
      const record = value as Record<string, unknown>;
      let out: Record<string, unknown> | null = null;
      for (const [key, r] of fields) {
        const next = r(record[key], prefix);
        if (next !== record[key]) (out ??= { ...record })[key] = next;
      }
      return out ?? value;
    };
  }
  if (schema instanceof z.ZodArray) {
    const r = inner(schema.element);
    if (!r) return null;
    return (value, prefix) => {
      if (!Array.isArray(value)) return value;
      const items = value as unknown[];
      let out: unknown[] | null = null;
      items.forEach((item, i) => {
        const next = r(item, prefix);
        if (next !== item) (out ??= items.slice())[i] = next;
      });
      return out ?? items;
    };
  }
  if (schema instanceof z.ZodUnion) {
    const options = (schema.options as z.ZodType[]).map(inner).filter((r): r is Rewrite => r !== null);
    if (options.length === 0) return null;
    // The first option that changes the value is the one it is (another option's rewrite leaves it as it is).
    return (value, prefix) => {
      for (const r of options) {
        const next = r(value, prefix);
        if (next !== value) return next;
      }
      return value;
    };
  }
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return inner(schema.unwrap());
  return null;
}

/** One document summary: its content path under the prefix (a data URL stays as it is). */
function underPrefix(value: unknown, prefix: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  const mime = (value as { mime_data?: unknown }).mime_data;
  if (mime === null || typeof mime !== 'object') return value;
  const url = (mime as { url?: unknown }).url;
  if (typeof url !== 'string' || !url.startsWith('/v1/')) return value;
  return { ...value, mime_data: { ...mime, url: `${prefix}${url}` } };
}
