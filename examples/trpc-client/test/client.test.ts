import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDocevalsClient, runClientFlow } from '../src/client.js';
import { startServer, type StartedServer } from '../src/server.js';

let server: StartedServer;

beforeAll(async () => {
  server = await startServer({ keys: { sk_test_example: 'org_example' }, port: 0 });
});

afterAll(async () => {
  await server.close();
});

it('runs the typed client flow against the standalone tRPC server: metrics follow the fixed annotation', async () => {
  const lines: string[] = [];
  const { before, after } = await runClientFlow(createDocevalsClient({ url: server.url, apiKey: 'sk_test_example' }), (l) =>
    lines.push(l),
  );
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/trpc$/);
  // "g77" vs "g71": one substitution in three characters for one of three fields of the second document.
  expect(before.item_metrics[0]!.similarity).toBe(1);
  expect(before.item_metrics[1]!.similarity).toBeCloseTo((1 - 1 / 3 + 1 + 1) / 3, 12);
  expect(after.mean_similarity).toBe(1);
  expect(lines).toContain('after fixing the annotation: mean similarity 1.0000');
  expect(lines.at(-1)).toMatch(/read: \{"invoice_number":"INV-001","vendor":"ACME Corp","total":1234\.5\}$/);
});

it('is refused with UNAUTHORIZED under an unknown key', async () => {
  const error = await createDocevalsClient({ url: server.url, apiKey: 'sk_wrong' })
    .evals.list.query()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TRPCClientError);
  expect((error as TRPCClientError<never>).data).toMatchObject({ code: 'UNAUTHORIZED', docevalsCode: 'unauthorized', httpStatus: 401 });
});

it('reads the URL and the key from DOCEVALS_URL and DOCEVALS_API_KEY', async () => {
  const saved = { url: process.env.DOCEVALS_URL, key: process.env.DOCEVALS_API_KEY };
  process.env.DOCEVALS_URL = server.url;
  process.env.DOCEVALS_API_KEY = 'sk_test_example';
  try {
    const page = await createDocevalsClient().evals.list.query({ limit: 1 });
    expect(page.data).toHaveLength(1);
  } finally {
    for (const [name, value] of [['DOCEVALS_URL', saved.url], ['DOCEVALS_API_KEY', saved.key]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
