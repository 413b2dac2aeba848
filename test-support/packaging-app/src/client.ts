// A typed tRPC client of the mounted router: only the router's type crosses from @docevals/trpc.
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { DocevalsRouter } from '@docevals/trpc';

const base = process.argv[2]!;
const client = createTRPCClient<DocevalsRouter>({ links: [httpLink({ url: `${base}/evals/trpc`, headers: { cookie: 'sid=s_good' } })] });

const page = await client.evals.list.query({});
const missing = await client.evals.get.query({ evaluation_id: 'eval_missing' }).then(
  () => 'found',
  (error: unknown) => (error instanceof TRPCClientError ? String((error.data as { code?: string } | undefined)?.code) : 'other'),
);
process.stdout.write(`${JSON.stringify({ listed: page.data.length, missing })}\n`);
