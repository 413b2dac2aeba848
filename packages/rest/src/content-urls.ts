/** How deep an answer is searched for document summaries: `data[].documents[].mime_data` is the deepest. */
const MAX_DEPTH = 4;

/**
 * The answer with every document summary's `mime_data.url` under the API's mount point. The service answers the
 * path of a document's content relative to where the REST API is mounted (`/v1/evals/{id}/documents/{id}/content`);
 * a REST API mounted under a base path (`/evals`) answers `/evals/v1/...`, a URL the caller can fetch as it is (as
 * the `Location` of a background run). Data URLs (whole documents) are left alone. Objects are copied where a URL
 * changes, never modified: the service may hold them.
 *
 * @example
 * withContentUrlsUnder({ data: [{ mime_data: { filename: 'a.txt', url: '/v1/evals/e/documents/d/content' } }] }, '/evals');
 * // { data: [{ mime_data: { filename: 'a.txt', url: '/evals/v1/evals/e/documents/d/content' } }] }
 */
export function withContentUrlsUnder<T>(value: T, prefix: string): T {
  if (prefix === '') return value;
  return rewrite(value, prefix, 0) as T;
}

function rewrite(value: unknown, prefix: string, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = rewrite(value[i], prefix, depth + 1);
      if (item !== value[i]) (out ??= value.slice())[i] = item;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const [key, item] of Object.entries(record)) {
    let next: unknown;
    if (key === 'mime_data' && item !== null && typeof item === 'object' && typeof (item as { url?: unknown }).url === 'string') {
      const url = (item as { url: string }).url;
      next = url.startsWith('/v1/') ? { ...item, url: `${prefix}${url}` } : item;
    } else {
      next = rewrite(item, prefix, depth + 1);
    }
    if (next !== item) (out ??= { ...record })[key] = next;
  }
  return out ?? value;
}
