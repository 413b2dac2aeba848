import { infiniteQueryOptions, useInfiniteQuery, type InfiniteData, type QueryKey } from '@tanstack/react-query';
import { useEffect } from 'react';

/** A page of a docevals list: its rows and the cursor after them (`list_metadata.after`, null after the last). */
export interface Paged {
  data: readonly unknown[];
  list_metadata: { after: string | null };
}

/**
 * `useInfiniteQuery`'s options for a docevals list paged by `after`. tRPC's own `infiniteQueryOptions` passes the
 * page as an input named `cursor`, and @trpc/tanstack-react-query does not let it be renamed: the key comes from
 * tRPC (`trpc.x.infiniteQueryKey(input)`, so that `trpc.x.pathKey()` invalidates it), the page from `fetchPage`.
 */
export function pagedOptions<TPage extends Paged>(queryKey: QueryKey, fetchPage: (after: string | undefined) => Promise<TPage>) {
  return infiniteQueryOptions({
    queryKey,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    getNextPageParam: (last: TPage) => (last.data.length === 0 ? undefined : (last.list_metadata.after ?? undefined)),
  });
}

/**
 * Every page of a list, read one after the other as soon as the previous one arrives (a refetch reads them all
 * again, in one pass: TanStack Query's infinite refetch).
 */
export function useAllPages<TPage extends Paged>(options: ReturnType<typeof pagedOptions<TPage>>) {
  const query = useInfiniteQuery(options);
  const { hasNextPage, isFetchingNextPage, isError, fetchNextPage } = query;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !isError) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, isError, fetchNextPage]);
  return { ...query, complete: query.isSuccess && !hasNextPage };
}

/**
 * Every page of a list in one read, as `useInfiniteQuery` keeps them (`{ pages, pageParams }`): for `useQueries`,
 * which has no infinite form (the documents behind a field, read in each of N iterations).
 */
export async function readAllPages<TPage extends Paged>(fetchPage: (after: string | undefined) => Promise<TPage>): Promise<InfiniteData<TPage, string | undefined>> {
  const pages: TPage[] = [];
  const pageParams: Array<string | undefined> = [];
  let after: string | undefined;
  do {
    const page = await fetchPage(after);
    pages.push(page);
    pageParams.push(after);
    after = page.data.length === 0 ? undefined : (page.list_metadata.after ?? undefined);
  } while (after !== undefined);
  return { pages, pageParams };
}

/**
 * The `after` of each page of `size` over a list whose order is known (`ids`, in the list's order): the first page
 * has none, page k starts after the k·size-th id. With them every page is asked for at once, not one after another.
 */
export function pageCursors(ids: readonly string[], size: number): Array<string | undefined> {
  const cursors: Array<string | undefined> = [undefined];
  for (let end = size; end < ids.length; end += size) cursors.push(ids[end - 1]);
  return cursors;
}

/** The pages at these cursors, read together (`pageCursors`), kept as `useInfiniteQuery` keeps pages. */
export async function readPagesAt<TPage extends Paged>(
  cursors: ReadonlyArray<string | undefined>,
  fetchPage: (after: string | undefined) => Promise<TPage>,
): Promise<InfiniteData<TPage, string | undefined>> {
  return { pages: await Promise.all(cursors.map(fetchPage)), pageParams: [...cursors] };
}
