/**
 * Issue 26, tRPC: one organization may hold at most `maxEventStreamsPerOrganization` `iterations.events`
 * subscriptions open at once; one more answers TOO_MANY_REQUESTS with the docevals code and a retry delay, another
 * organization is not affected, and a subscription whose client leaves frees its place at once (while the iteration
 * is still waiting for its next event). Over tRPC's SSE transport on a real socket.
 */
import type { AddressInfo } from 'node:net';
import { memoryStorage } from '@docevals/adapters/memory';
import { apiKeyAuthenticator, createDocevals, type Extractor } from '@docevals/core';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDocevalsContext, createDocevalsRouter } from '../src/index.js';
import { KEYS } from './serve-router.js';

let release!: () => void;
const gate = new Promise<void>((resolve) => (release = resolve));
const held: Extractor = { name: 'held', models: ['held'], extract: async () => (await gate, { data: { total: 1 } }) };
const docevals = createDocevals({ storage: memoryStorage(), extractors: [held] });
const server = createHTTPServer({
  router: createDocevalsRouter({ docevals, maxEventStreamsPerOrganization: 2 }),
  createContext: createDocevalsContext({ authenticate: apiKeyAuthenticator({ keys: KEYS }) }),
  basePath: '/trpc/',
});
let url: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/trpc`;
});
afterAll(async () => {
  release();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function runningIteration(org: string) {
  const evaluation = await docevals.evals.create(org, {
    name: 'streams',
    json_schema: { type: 'object', properties: { total: { type: 'number' } } },
    documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('a').toString('base64')}` }, annotation: { total: 1 } }],
    default_inference_settings: { model: 'held' },
  });
  const iteration = await docevals.evals.iterations.create(org, { evaluation_id: evaluation.id, background: true });
  return { evaluation_id: evaluation.id, iteration_id: iteration.id };
}

/**
 * Opens `iterations.events` as httpSubscriptionLink does and reads until its first message: `connected` when the
 * procedure is running (tRPC sends it first), or the error the procedure answered with.
 */
async function subscribe(ref: { evaluation_id: string; iteration_id: string }, key: string) {
  const controller = new AbortController();
  const response = await fetch(`${url}/evals.iterations.events?input=${encodeURIComponent(JSON.stringify(ref))}`, {
    headers: { 'api-key': key },
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  let text = '';
  while (!/event: (connected|serialized-error)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  return { refused: text.includes('serialized-error'), text, close: () => controller.abort() };
}

it('refuses the 3rd subscription of an organization with TOO_MANY_REQUESTS, serves another, frees a place on close', async () => {
  const [keyA, keyB] = Object.keys(KEYS) as [string, string];
  const refA = await runningIteration(KEYS[keyA as keyof typeof KEYS]);
  const refB = await runningIteration(KEYS[keyB as keyof typeof KEYS]);
  const open = [await subscribe(refA, keyA), await subscribe(refA, keyA)];
  expect(open.map((s) => s.refused)).toEqual([false, false]);
  const refused = await subscribe(refA, keyA);
  expect(refused.refused).toBe(true);
  expect(refused.text).toContain('"code":"TOO_MANY_REQUESTS"');
  expect(refused.text).toContain('"docevalsCode":"rate_limited"');
  expect(refused.text).toContain('"retry_after":5');
  refused.close();
  const other = await subscribe(refB, keyB);
  expect(other.refused).toBe(false);

  // The iteration is held (no event is coming): the place frees because the subscription stops when its client leaves.
  open[0]!.close();
  let again = await subscribe(refA, keyA);
  for (let i = 0; i < 100 && again.refused; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    again = await subscribe(refA, keyA);
  }
  expect(again.refused).toBe(false);
  for (const s of [...open, other, again]) s.close();
});
