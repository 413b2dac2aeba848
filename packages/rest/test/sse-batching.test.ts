/**
 * Issue 26: an event stream writes what is ready in one write. A subscriber joining an iteration late (or an
 * iteration already over) gets every event so far at once; written one socket write per event, 1,000 subscribers of
 * a long run were tens of thousands of writes on the server and as many reads on the clients. Read through the fetch
 * handler itself (no socket that could merge writes), so each chunk of the answer is one write of the stream.
 */
import { memoryStorage } from '@docevals/adapters/memory';
import { apiKeyAuthenticator, createDocevals, type Extractor, type IterationEvent } from '@docevals/core';
import { createRestHandler } from '@docevals/rest';
import { expect, it } from 'vitest';
import { totalsEvaluationBody } from './support/fixtures.js';

const DOCUMENTS = 40;
const instant: Extractor = { name: 'instant', models: ['instant'], extract: async () => ({ data: { total: 1 } }) };

it('the events of a finished iteration arrive in a few writes, each event in the SSE form with its id, type and data', async () => {
  const docevals = createDocevals({ storage: memoryStorage(), extractors: [instant] });
  const handler = createRestHandler({ docevals, authenticate: apiKeyAuthenticator({ keys: { key: 'org_a' } }) });
  const evaluation = await docevals.evals.create('org_a', totalsEvaluationBody('batched', DOCUMENTS, 'instant'));
  const iteration = await docevals.evals.iterations.create('org_a', { evaluation_id: evaluation.id, background: true });
  while ((await docevals.evals.iterations.get('org_a', { evaluation_id: evaluation.id, iteration_id: iteration.id })).status !== 'completed') {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }

  const expected: IterationEvent[] = [];
  // An id the job never wrote: the stream starts from the job's first event (docs/spec/jobs.md), like a late subscriber.
  const replay = { evaluation_id: evaluation.id, iteration_id: iteration.id, last_event_id: 'unknown' };
  for await (const event of docevals.evals.iterations.events('org_a', replay)) expected.push(event);
  expect(expected.length).toBeGreaterThan(DOCUMENTS);

  const response = await handler(new Request(`http://x/v1/evals/${evaluation.id}/iterations/${iteration.id}/events`, { headers: { 'api-key': 'key', 'last-event-id': 'unknown' } }));
  expect(response.status).toBe(200);
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) chunks.push(decoder.decode(chunk.value));
  // ": connected", then the events: one write each would be DOCUMENTS * 2 + 1 chunks.
  expect(chunks.length).toBeLessThanOrEqual(3);

  const blocks = chunks.join('').split('\n\n').filter((block) => block && !block.startsWith(':'));
  expect(blocks).toEqual(expected.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event.data)}\nid: ${event.id}`));
});
