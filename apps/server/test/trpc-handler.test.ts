import { apiKeyAuthenticator, createDocevals } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';
import { describe, expect, it } from 'vitest';
import { createTrpcHandler } from '../src/trpc-handler.js';

describe('the standalone tRPC handler', () => {
  const handler = createTrpcHandler({
    docevals: createDocevals({ storage: memoryStorage() }),
    authenticate: apiKeyAuthenticator({ keys: { k: 'org' } }),
    endpoint: '/trpc',
    maxBodyBytes: 1024,
  });
  const post = (body: string, headers: Record<string, string> = {}) =>
    handler(
      new Request('http://127.0.0.1/trpc/evals.create', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-key': 'k', ...headers },
        body,
      }),
    );

  it('refuses a declared body over the limit in tRPC\'s error shape, with the docevals code in data', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(2000), json_schema: { type: 'object' } });
    const response = await post(body, { 'content-length': String(Buffer.byteLength(body)) });
    expect(response.status).toBe(413);
    const json = (await response.json()) as { error: { code: number; data: { code: string; httpStatus: number } } };
    expect(json.error.code).toBe(-32013);
    expect(json.error.data).toEqual({ code: 'PAYLOAD_TOO_LARGE', docevalsCode: 'payload_too_large', httpStatus: 413 });
  });

  it('passes a body within the limit through to the router', async () => {
    const response = await post(JSON.stringify({ name: 'small', json_schema: { type: 'object' } }));
    expect(response.status).toBe(200);
    const json = (await response.json()) as { result: { data: { name: string } } };
    expect(json.result.data.name).toBe('small');
  });
});
