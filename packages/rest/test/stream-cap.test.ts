/**
 * Issue 26, SSE: one organization may hold at most `limits.maxEventStreamsPerOrganization` event streams open at once;
 * one more is a 429 `rate_limited` with `Retry-After`, another organization is not affected, and a closed stream frees
 * its place. Counted by the organization authenticated, not by a header a client can vary.
 */
import { memoryStorage } from '@docevals/adapters/memory';
import type { Extractor } from '@docevals/core';
import { countingStorage } from '../../../test-support/counting-storage.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KEY_A, KEY_B, startRestServer, type RestServer } from './support/rest-server.js';

let release!: () => void;
const gate = new Promise<void>((resolve) => (release = resolve));
const held: Extractor = { name: 'held', models: ['held'], extract: async () => (await gate, { data: { total: 1 } }) };

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({ limits: { maxEventStreamsPerOrganization: 3 }, docevals: { extractors: [held] } });
});
afterAll(async () => {
  release();
  await api.close();
});

async function runningIteration(key: string) {
  const evaluation = await api.call('POST', '/v1/evals', {
    key,
    body: {
      name: 'streams',
      json_schema: { type: 'object', properties: { total: { type: 'number' } } },
      documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('a').toString('base64')}` }, annotation: { total: 1 } }],
      default_inference_settings: { model: 'held' },
    },
  });
  const iteration = await api.call('POST', `/v1/evals/${evaluation.body.id}/iterations/create`, { key, body: { background: true } });
  expect(iteration.status).toBe(202);
  return `/v1/evals/${evaluation.body.id}/iterations/${iteration.body.id}/events`;
}

/** Opens an event stream and waits for its first bytes; the controller closes it. */
async function open(path: string, key: string) {
  const controller = new AbortController();
  const response = await fetch(`${api.url}${path}`, { headers: { 'api-key': key }, signal: controller.signal });
  if (response.status === 200) {
    const reader = response.body!.getReader();
    await reader.read();
  }
  return { response, close: () => controller.abort() };
}

it('refuses the 4th open stream of a key with 429, serves another key, and frees a place when a stream closes', async () => {
  const pathA = await runningIteration(KEY_A);
  const pathB = await runningIteration(KEY_B);
  const streams = [await open(pathA, KEY_A), await open(pathA, KEY_A), await open(pathA, KEY_A)];
  expect(streams.map((s) => s.response.status)).toEqual([200, 200, 200]);
  const refused = await open(pathA, KEY_A);
  expect(refused.response.status).toBe(429);
  expect(refused.response.headers.get('retry-after')).toBe('5');
  expect(await refused.response.json()).toMatchObject({ error: { code: 'rate_limited' } });
  const other = await open(pathB, KEY_B);
  expect(other.response.status).toBe(200);

  streams[0]!.close();
  let again = await open(pathA, KEY_A);
  for (let i = 0; i < 50 && again.response.status === 429; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    again = await open(pathA, KEY_A);
  }
  expect(again.response.status).toBe(200);
  for (const s of [...streams, other, again]) s.close();
});

it('counts by the organization the host authenticated: a client naming new API keys opens no new places', async () => {
  // A host that signs people in by cookie: the api-key header is not what authenticated them.
  const byCookie = await startRestServer({
    limits: { maxEventStreamsPerOrganization: 2 },
    docevals: { extractors: [held] },
    authenticate: (request) => (request.headers.get('cookie') === 'session=org_a' ? 'org_a' : null),
  });
  try {
    const session = { cookie: 'session=org_a' };
    const evaluation = await byCookie.call('POST', '/v1/evals', {
      key: null,
      headers: session,
      body: {
        name: 'streams',
        json_schema: { type: 'object', properties: { total: { type: 'number' } } },
        documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('a').toString('base64')}` }, annotation: { total: 1 } }],
        default_inference_settings: { model: 'held' },
      },
    });
    const iteration = await byCookie.call('POST', `/v1/evals/${evaluation.body.id}/iterations/create`, { key: null, headers: session, body: { background: true } });
    expect(iteration.status).toBe(202);
    const path = `/v1/evals/${evaluation.body.id}/iterations/${iteration.body.id}/events`;
    const controllers: AbortController[] = [];
    const statuses: number[] = [];
    for (const bogus of ['r1', 'r2', 'r3']) {
      const controller = new AbortController();
      controllers.push(controller);
      const response = await fetch(`${byCookie.url}${path}`, { headers: { ...session, 'api-key': bogus }, signal: controller.signal });
      statuses.push(response.status);
      if (response.status === 200) await response.body!.getReader().read();
    }
    expect(statuses).toEqual([200, 200, 429]);
    for (const controller of controllers) controller.abort();
  } finally {
    await byCookie.close();
  }
});

it('a refusal reads nothing from the store (a burst of subscribers costs the cap check), and a 404 frees its place', async () => {
  const storage = countingStorage(memoryStorage());
  const counted = await startRestServer({ limits: { maxEventStreamsPerOrganization: 1 }, docevals: { storage, extractors: [held] } });
  try {
    const evaluation = await counted.call('POST', '/v1/evals', {
      body: {
        name: 'streams',
        json_schema: { type: 'object', properties: { total: { type: 'number' } } },
        documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('a').toString('base64')}` }, annotation: { total: 1 } }],
        default_inference_settings: { model: 'held' },
      },
    });
    const path = `/v1/evals/${evaluation.body.id}/iterations/`;
    // Unknown iteration: 404, and its place is free again (the next open succeeds).
    expect((await counted.call('GET', `${path}iter_unknown/events`)).status).toBe(404);
    const iteration = await counted.call('POST', `/v1/evals/${evaluation.body.id}/iterations/create`, { body: { background: true } });
    const controller = new AbortController();
    const first = await fetch(`${counted.url}${path}${iteration.body.id}/events`, { headers: { 'api-key': KEY_A }, signal: controller.signal });
    expect(first.status).toBe(200);
    await first.body!.getReader().read();

    storage.reset();
    const refused = await counted.call('GET', `${path}${iteration.body.id}/events`);
    expect(refused.status).toBe(429);
    expect([...storage.calls.keys()]).toEqual([]);
    controller.abort();
  } finally {
    await counted.close();
  }
});
