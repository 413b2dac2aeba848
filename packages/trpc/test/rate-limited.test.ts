/**
 * The cap on queued + running iterations per organization over tRPC (issue 26): TOO_MANY_REQUESTS (429) with the
 * docevals code `rate_limited`, `data.retry_after` and a `Retry-After` header, through `createDocevalsFetchHandler`.
 */
import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Extractor } from '@docevals/core';
import { serve, type Served } from './serve-fetch-handler.js';

let release!: () => void;
const gate = new Promise<void>((r) => (release = r));
const held: Extractor = { name: 'held', models: ['held'], extract: async () => (await gate, { data: {} }) };
let served: Served;
beforeAll(async () => {
  served = await serve({ extractors: [held], jobs: { maxIterationsPerOrganization: 1 } });
});
afterAll(async () => {
  release();
  await served.close();
});

const mutate = async (path: string, input: unknown, key = 'key_a') => {
  const response = await fetch(`${served.url}/${path}`, {
    method: 'POST',
    headers: { 'api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};

describe('per-organization cap over tRPC', () => {
  it("the organization's second active iteration is TOO_MANY_REQUESTS with Retry-After; another organization's is not", async () => {
    const evaluation = async (key: string) =>
      (
        await mutate(
          'evals.create',
          {
            name: 'capped',
            json_schema: { type: 'object', properties: { total: { type: 'number' } } },
            documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('Total: 1').toString('base64')}` }, annotation: { total: 1 } }],
            default_inference_settings: { model: 'held' },
          },
          key,
        )
      ).body.result.data.id as string;
    const [a, b] = [await evaluation('key_a'), await evaluation('key_b')];
    expect((await mutate('evals.iterations.createInBackground', { evaluation_id: a })).status).toBe(200);
    const refused = await mutate('evals.iterations.createInBackground', { evaluation_id: a });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body.error.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', docevalsCode: 'rate_limited', httpStatus: 429, retry_after: 5 });
    expect((await mutate('evals.iterations.createInBackground', { evaluation_id: b }, 'key_b')).status).toBe(200);
  });
});
