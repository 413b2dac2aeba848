import type { ExtractionDocument } from '@docevals/core';

/** The rendered form of documents, shared by the runs and retries of one document (n_consensus up to 16). */
export interface RenderedCache<T> {
  /** The cached value for (document object, key), else `make()`'s, kept while within the budget. */
  get(document: ExtractionDocument, key: string, make: () => Promise<T>): Promise<T>;
}

/**
 * A least-recently-used cache of rendered documents bounded by `budget` size units (the sizes `sizeOf` gives, such
 * as base64 characters). Entries are keyed by the document object (the runner hands the same object to every run
 * and retry of a document) and `key` (the settings that shape the rendering). A rendering that fails is not kept;
 * one larger than the whole budget is returned but not kept.
 *
 * @example
 * const cache = renderedCache<string[]>(64 * 1024 * 1024, (pages) => pages.join('').length);
 * const pages = await cache.get(document, 'image|96|A4', () => renderAsBase64(document));
 */
export function renderedCache<T>(budget: number, sizeOf: (value: T) => number): RenderedCache<T> {
  const ids = new WeakMap<ExtractionDocument, number>();
  let nextId = 0;
  const entries = new Map<string, { value: Promise<T>; size: number }>();
  let total = 0;

  function evict(): void {
    for (const [key, entry] of entries) {
      if (total <= budget) break;
      entries.delete(key);
      total -= entry.size;
    }
  }

  return {
    get(document, key, make) {
      let id = ids.get(document);
      if (id === undefined) {
        id = nextId++;
        ids.set(document, id);
      }
      const full = `${id}|${key}`;
      const hit = entries.get(full);
      if (hit) {
        entries.delete(full);
        entries.set(full, hit); // most recently used last
        return hit.value;
      }
      const entry = { value: make(), size: 0 };
      entries.set(full, entry);
      entry.value.then(
        (value) => {
          if (entries.get(full) !== entry) return;
          entry.size = sizeOf(value);
          total += entry.size;
          if (entry.size > budget) {
            entries.delete(full);
            total -= entry.size;
          }
          evict();
        },
        () => {
          if (entries.get(full) === entry) entries.delete(full);
        },
      );
      return entry.value;
    },
  };
}
