/**
 * The per-key rate limit of the standalone server (docs/spec/limits.md): a token bucket per API key, in Redis when
 * the server runs on Redis, so that two servers on one Redis share one budget per key. Real sockets, real Redis.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createStandaloneServer } from '../src/app.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(env: Record<string, string>): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'docevals-rate-limit-'));
  // Servers sharing a store share the master key of organization secrets (each would generate its own otherwise, and
  // the second refuses to start: docs/secrets.md).
  const app = await createStandaloneServer(
    { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!, ...env },
    { log: () => {} },
  );
  const url = await app.listen();
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }), () => app.close(100));
  return url;
}

describe('per-key rate limit', () => {
  it('10 requests/s per key hold across two servers on one Redis: the 11th in a second is 429 with Retry-After', async () => {
    const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const env = {
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: `rate${tag}:`,
      DOCEVALS_API_KEYS: `key-a:org_a${tag},key-b:org_b${tag}`,
      DOCEVALS_RATE_LIMIT: '10',
      DOCEVALS_RATE_BURST: '0',
    };
    const [one, two] = [await server(env), await server(env)];
    const get = (url: string, key: string, path = '/v1/evals') => fetch(`${url}${path}`, { headers: { 'api-key': key } });
    // Ten, alternating between the servers, at once: all pass, with the IETF RateLimit headers counting down.
    const first = await Promise.all(Array.from({ length: 10 }, (_, i) => get(i % 2 ? one : two, 'key-a')));
    expect(first.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(first.every((r) => r.headers.get('ratelimit-limit') === '10')).toBe(true);
    expect(new Set(first.map((r) => r.headers.get('ratelimit-remaining')))).toEqual(new Set(Array.from({ length: 10 }, (_, i) => String(i))));
    // The eleventh, on either server, within the second: 429 rate_limited, Retry-After, over REST and tRPC alike.
    const eleventh = await get(one, 'key-a');
    expect(eleventh.status).toBe(429);
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(eleventh.headers.get('ratelimit-remaining')).toBe('0');
    expect(await eleventh.json()).toMatchObject({ error: { code: 'rate_limited', retry_after: expect.any(Number) } });
    const trpc = await get(two, 'key-a', '/trpc/evals.list?input=%7B%7D');
    expect(trpc.status).toBe(429);
    expect(trpc.headers.get('retry-after')).not.toBeNull();
    expect(await trpc.json()).toMatchObject({ error: { data: { code: 'TOO_MANY_REQUESTS', docevalsCode: 'rate_limited', httpStatus: 429 } } });
    // Another key has its own budget; /health is not limited.
    expect((await get(two, 'key-b')).status).toBe(200);
    expect((await fetch(`${one}/health`)).status).toBe(200);
    // After the window, key A passes again.
    await new Promise((r) => setTimeout(r, Number(eleventh.headers.get('retry-after')) * 1000 + 100));
    expect((await get(one, 'key-a')).status).toBe(200);
  });

  it('DOCEVALS_RATE_LIMIT=0 turns it off', async () => {
    const url = await server({ DOCEVALS_API_KEYS: 'key-off:org_off', DOCEVALS_RATE_LIMIT: '0' });
    const answers = await Promise.all(Array.from({ length: 30 }, () => fetch(`${url}/v1/evals`, { headers: { 'api-key': 'key-off' } })));
    expect(answers.every((r) => r.status === 200 && !r.headers.has('ratelimit-limit'))).toBe(true);
  });
});
