// The field's scores at 10,000 documents (issue 28's review): every page of an iteration's predictions asked for at
// once, from cursors known beforehand, instead of one page after the other.
import { describe, expect, it } from 'vitest';
import { pageCursors, readAllPages, readPagesAt } from '../src/paged.js';

const ids = Array.from({ length: 2_500 }, (_, i) => `doc_${i}`);

/** A list paged by `after` over `ids` (pages of `size`), counting requests and how many were in flight at once. */
function list(size: number) {
  const seen = { requests: 0, inFlight: 0, most: 0 };
  const fetchPage = async (after: string | undefined) => {
    seen.requests++;
    seen.most = Math.max(seen.most, ++seen.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    seen.inFlight--;
    const start = after === undefined ? 0 : ids.indexOf(after) + 1;
    const data = ids.slice(start, start + size);
    return { data, list_metadata: { after: start + size < ids.length ? data.at(-1)! : null } };
  };
  return { seen, fetchPage };
}

describe('pageCursors and readPagesAt', () => {
  it('gives the cursor of each page: none for the first, then the last id of the page before', () => {
    expect(pageCursors(ids, 1_000)).toEqual([undefined, 'doc_999', 'doc_1999']);
    expect(pageCursors(ids.slice(0, 1_000), 1_000)).toEqual([undefined]);
    expect(pageCursors([], 1_000)).toEqual([undefined]);
  });

  it('reads every page at once and gets what reading page after page gets', async () => {
    const together = list(1_000);
    const read = await readPagesAt(pageCursors(ids, 1_000), together.fetchPage);
    expect(together.seen).toMatchObject({ requests: 3, most: 3 });
    const oneByOne = list(1_000);
    const sequential = await readAllPages(oneByOne.fetchPage);
    expect(oneByOne.seen.most).toBe(1);
    expect(read.pages.flatMap((page) => page.data)).toEqual(ids);
    expect(read.pages.flatMap((page) => page.data)).toEqual(sequential.pages.flatMap((page) => page.data));
  });
});
