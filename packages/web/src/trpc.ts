import { QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchStreamLink, httpSubscriptionLink, isTRPCClientError, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { DocevalsRouter } from '@docevals/trpc';
import { readApiKey, signOut } from './auth.js';

export type AppRouter = DocevalsRouter;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** The typed tRPC hooks: `const trpc = useTRPC(); useQuery(trpc.evals.list.queryOptions())`. */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/**
 * Where the app is mounted: the `basePath` of `createWebHandler`, which names it in a `<meta name="docevals-base">`
 * of index.html (absent under Vite's dev server: the root). Its routes and API calls live under it.
 */
export const APP_BASE = document.querySelector<HTMLMetaElement>('meta[name="docevals-base"]')?.content.replace(/\/+$/, '') ?? '';

/** Where the standalone server (and any host that mounts the app next to it) serves the router. */
export const TRPC_URL = `${APP_BASE}/trpc`;

/** The URL of a REST path (`/v1/...`) of the API the app is mounted with. */
export function restUrl(path: string): string {
  return `${APP_BASE}${path}`;
}

/**
 * The tRPC client: queries and mutations batched over HTTP with the `Api-Key` header; subscriptions (run progress)
 * over Server-Sent Events, which cannot carry headers: the key goes in tRPC's `connectionParams`, which the
 * server's `createDocevalsContext` reads when no header carries one.
 */
export function createClient() {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url: TRPC_URL, connectionParams: () => ({ apiKey: readApiKey() ?? '' }) }),
        false: httpBatchStreamLink({
          url: TRPC_URL,
          headers: () => {
            const key = readApiKey();
            return key ? { 'Api-Key': key } : {};
          },
        }),
      }),
    ],
  });
}

/** True for the server's 401: the key was refused (or is missing). */
export function isUnauthorized(error: unknown): boolean {
  return httpStatus(error) === 401;
}

/** The HTTP status of a tRPC call's failure; undefined when it never reached the server. */
export function httpStatus(error: unknown): number | undefined {
  return isTRPCClientError(error) ? (error.data as { httpStatus?: number } | undefined)?.httpStatus : undefined;
}

/** A message for people from any failure: the server's words for a docevals error. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * The query client: a refused key signs out (the sign-in page says why), no retry of 4xx answers.
 */
export function createQueryClient(onUnauthorized: () => void = signOut) {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        retry: (count, error) => {
          if (isUnauthorized(error)) {
            onUnauthorized();
            return false;
          }
          const status = httpStatus(error);
          return (status === undefined || status >= 500) && count < 2;
        },
      },
    },
  });
}
