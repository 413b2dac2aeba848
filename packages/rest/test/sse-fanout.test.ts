/**
 * Issue 26, SSE fan-out over REST: 200 event streams of organization A on one running iteration are served by ONE
 * storage reader (store calls counted through a wrapper over a real memory store), each stream gets every event in
 * order. Organization B's p99 under such a crowd, with the clients in another process, is asserted by
 * apps/server/test/event-stream-flood.test.ts.
 */
import { memoryStorage } from '@docevals/adapters/memory';
import type { Extractor } from '@docevals/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { countingStorage } from '../../../test-support/counting-storage.js';
import { KEY_A, startRestServer, type RestServer } from './support/rest-server.js';
import { totalsEvaluationBody } from './support/fixtures.js';

const STREAMS = 200;
const DOCUMENTS = 4;

const pending: Array<() => void> = [];
const stepped: Extractor = {
  name: 'stepped',
  models: ['stepped'],
  extract: async () => (await new Promise<void>((resolve) => pending.push(resolve)), { data: { total: 1 } }),
};
const releaseOne = async () => {
  while (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  pending.shift()!();
};

const storage = countingStorage(memoryStorage());
let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({
    limits: { maxEventStreamsPerOrganization: 0 },
    docevals: { storage, extractors: [stepped], extraction: { concurrency: 1 } },
  });
  api.server.keepAliveTimeout = 120_000;
});
afterAll(async () => {
  pending.splice(0).forEach((resolve) => resolve());
  await api.close();
});

/** Reads an SSE stream to its end: the `id` and `event` of each event. */
async function readStream(path: string, opened: () => void): Promise<string[]> {
  const response = await fetch(`${api.url}${path}`, { headers: { 'api-key': KEY_A } });
  expect(response.status).toBe(200);
  opened();
  const seen: string[] = [];
  let text = '';
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    text += decoder.decode(chunk.value, { stream: true });
    const blocks = text.split('\n\n');
    text = blocks.pop()!;
    for (const block of blocks) {
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const event = /^event: (.*)$/m.exec(block)?.[1];
      if (event) seen.push(`${event} ${id ?? ''}`);
    }
  }
  return seen;
}

it(`${STREAMS} streams of one running iteration: one storage reader, every event in order to each`, async () => {
  const evaluation = await api.call('POST', '/v1/evals', { body: totalsEvaluationBody('fan-out', DOCUMENTS, 'stepped') });
  const iteration = await api.call('POST', `/v1/evals/${evaluation.body.id}/iterations/create`, { body: { background: true } });
  expect(iteration.status).toBe(202);
  const path = `/v1/evals/${evaluation.body.id}/iterations/${iteration.body.id}/events`;

  storage.reset();
  let opened = 0;
  const streams = Array.from({ length: STREAMS }, () => readStream(path, () => (opened += 1)));
  while (opened < STREAMS) await new Promise((resolve) => setTimeout(resolve, 10));
  for (let i = 0; i < DOCUMENTS; i++) await releaseOne();
  const logs = await Promise.all(streams);

  const first = logs[0]!;
  expect(first.filter((line) => line.startsWith('document '))).toHaveLength(DOCUMENTS);
  expect(first.at(-1)).toMatch(/^completed /);
  for (const log of logs) expect(log).toEqual(first);
  // 200 readers would list the events 200 times at their first read alone.
  expect(storage.reads('events.list')).toBeLessThan(60);
}, 120_000);
