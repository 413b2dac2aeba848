import { apiKeyAuthenticator } from '@docevals/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocevalsContext } from '../src/index.js';
import { serve, type Served } from './serve-fetch-handler.js';

// A browser's EventSource cannot send headers: httpSubscriptionLink's `connectionParams` carry the key instead
// (the web app's progress stream). A header, when there is one, wins.
describe('the API key in tRPC connectionParams', () => {
  const createContext = createDocevalsContext({ authenticate: apiKeyAuthenticator({ keys: { key_a: 'org_a' } }) });
  const bare = () => new Request('http://x/trpc/evals.iterations.events');

  it('authenticates from connectionParams.apiKey when no header carries a key', async () => {
    expect(await createContext({ req: bare(), info: { type: 'subscription', connectionParams: { apiKey: 'key_a' } } })).toEqual({ organizationId: 'org_a' });
    expect(await createContext({ req: bare(), info: { type: 'subscription', connectionParams: { apiKey: 'wrong' } } })).toEqual({ organizationId: null, apiKeySent: true });
    expect(await createContext({ req: bare(), info: { type: 'subscription', connectionParams: { apiKey: '' } } })).toEqual({ organizationId: null, apiKeySent: false });
    expect(await createContext({ req: bare(), info: { type: 'subscription', connectionParams: null } })).toEqual({ organizationId: null, apiKeySent: false });
  });

  it('reads connectionParams for subscriptions only: a query or mutation with the key in its URL is not authenticated', async () => {
    for (const type of ['query', 'mutation', 'unknown', undefined]) {
      expect(await createContext({ req: bare(), info: { type, connectionParams: { apiKey: 'key_a' } } })).toEqual({ organizationId: null, apiKeySent: false });
    }
  });

  it('lets a key in the headers win over connectionParams, and leaves the request headers as they were', async () => {
    const req = new Request('http://x/trpc/evals.list', { headers: { 'api-key': 'wrong' } });
    expect(await createContext({ req, info: { type: 'subscription', connectionParams: { apiKey: 'key_a' } } })).toEqual({ organizationId: null, apiKeySent: true });
    const plain = bare();
    await createContext({ req: plain, info: { type: 'subscription', connectionParams: { apiKey: 'key_a' } } });
    expect(plain.headers.get('api-key')).toBeNull();
  });

  describe('over a real socket (the SSE URL httpSubscriptionLink opens)', () => {
    let served: Served;
    beforeAll(async () => {
      served = await serve();
    });
    afterAll(() => served.close());

    /** The first bytes of the stream `GET /trpc/evals.iterations.events` answers with these query parameters. */
    async function firstEvents(connectionParams: Record<string, string> | null): Promise<{ status: number; text: string }> {
      const input = encodeURIComponent(JSON.stringify({ evaluation_id: 'eval_missing', iteration_id: 'iter_missing' }));
      const params = connectionParams ? `&connectionParams=${encodeURIComponent(JSON.stringify(connectionParams))}` : '';
      const controller = new AbortController();
      const response = await fetch(`${served.url}/evals.iterations.events?input=${input}${params}`, { signal: controller.signal });
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('\n\n') || !/error/i.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      controller.abort();
      return { status: response.status, text };
    }

    it('a stream opened with the key in connectionParams reaches the procedure (the service runs for a missing evaluation: no 401)', async () => {
      const withKey = await firstEvents({ apiKey: 'key_a' });
      // The procedure ran as org_a: the service looked the evaluation up (and did not find it), and the error
      // reaches the client with its code (it used to be INTERNAL_SERVER_ERROR inside a subscription).
      expect(withKey.text).toContain('NOT_FOUND');
      expect(withKey.text).not.toContain('INTERNAL_SERVER_ERROR');
      expect(withKey.text).not.toContain('UNAUTHORIZED');
      expect(withKey.text).not.toContain('No procedure');
      const withoutKey = await firstEvents(null);
      expect(withoutKey.text).toContain('UNAUTHORIZED');
      const wrongKey = await firstEvents({ apiKey: 'key_wrong' });
      expect(wrongKey.text).toContain('UNAUTHORIZED');
    });

    it('a query with the key in connectionParams is 401 (the key in a URL opens only an events stream)', async () => {
      const params = encodeURIComponent(JSON.stringify({ apiKey: 'key_a' }));
      const response = await fetch(`${served.url}/evals.list?input=${encodeURIComponent('{}')}&connectionParams=${params}`);
      expect(response.status).toBe(401);
    });
  });
});
