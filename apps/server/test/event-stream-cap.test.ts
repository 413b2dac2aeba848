/**
 * Issue 26, one stream cap per service: REST's `GET .../events` and tRPC's `iterations.events` of the standalone
 * server take their places from the service's one count (docs/spec/limits.md). With organization A's 20 REST streams
 * open, A's first tRPC subscription is refused with the same docevals code (and A's 21st REST stream too), while
 * organization B opens both; a REST stream that closes gives A's subscription its place.
 */
import { afterEach, expect, it } from 'vitest';
import { heldModel, runningIteration } from './support/held-iteration.js';
import { standaloneServers } from './support/standalone-servers.js';

const servers = standaloneServers('docevals-stream-cap-');
const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Opens a REST event stream; once it answered, its status and (a 429's) body. */
async function openRest(url: string, path: string, key: string) {
  const controller = new AbortController();
  cleanups.push(() => controller.abort());
  const response = await fetch(`${url}${path}`, { headers: { 'api-key': key }, signal: controller.signal });
  const body = response.status === 200 ? null : await response.json();
  if (response.status === 200) await response.body!.getReader().read();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body, close: () => controller.abort() };
}

/** Opens `iterations.events` as tRPC's httpSubscriptionLink does, up to its first message: `connected` or the error. */
async function openTrpc(url: string, ref: { evaluation_id: string; iteration_id: string }, key: string) {
  const controller = new AbortController();
  cleanups.push(() => controller.abort());
  const response = await fetch(`${url}/trpc/evals.iterations.events?input=${encodeURIComponent(JSON.stringify(ref))}`, {
    headers: { 'api-key': key },
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!/event: (connected|serialized-error)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return { refused: text.includes('serialized-error'), text, close: () => controller.abort() };
}

it("A's 20 REST streams leave no place for A's first tRPC subscription (429 rate_limited); B opens both; a closed stream frees one", async () => {
  const model = await heldModel();
  cleanups.push(() => model.stop());
  const { url } = await servers.start(
    { DOCEVALS_API_KEYS: 'key-a:org_a,key-b:org_b', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, DOCEVALS_RATE_LIMIT: '0' },
    { log: () => {} },
  );
  const a = await runningIteration(url, 'key-a');
  const b = await runningIteration(url, 'key-b');

  const rest = await Promise.all(Array.from({ length: 20 }, () => openRest(url, a.eventsPath, 'key-a')));
  expect(rest.map((s) => s.status)).toEqual(Array(20).fill(200));
  const subscription = await openTrpc(url, a, 'key-a');
  expect(subscription.refused).toBe(true);
  expect(subscription.text).toContain('"code":"TOO_MANY_REQUESTS"');
  expect(subscription.text).toContain('"docevalsCode":"rate_limited"');
  expect(subscription.text).toContain('"retry_after":5');
  subscription.close();
  const restRefused = await openRest(url, a.eventsPath, 'key-a');
  expect([restRefused.status, restRefused.retryAfter, restRefused.body?.error?.code]).toEqual([429, '5', 'rate_limited']);

  const [otherRest, otherTrpc] = [await openRest(url, b.eventsPath, 'key-b'), await openTrpc(url, b, 'key-b')];
  expect([otherRest.status, otherTrpc.refused]).toEqual([200, false]);

  // The iteration is held (no event coming): the place frees as soon as the client leaves, for either transport.
  rest[0]!.close();
  let again = await openTrpc(url, a, 'key-a');
  for (let i = 0; i < 100 && again.refused; i++) {
    again.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    again = await openTrpc(url, a, 'key-a');
  }
  expect(again.refused).toBe(false);
  const full = await openRest(url, a.eventsPath, 'key-a');
  expect(full.status).toBe(429);
}, 60_000);
