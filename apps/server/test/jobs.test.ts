/**
 * Iterations as durable jobs (issue 14), through the standalone server over real sockets: a lowdb store on disk, a
 * model served by an OpenAI-compatible server on loopback with latency.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTRPCClient, httpSubscriptionLink, splitLink, httpLink } from '@trpc/client';
import type { DocevalsRouter } from '@docevals/trpc';
import { EventSource } from 'eventsource';
import { afterEach, describe, expect, it } from 'vitest';
import { createStandaloneServer } from '../src/app.js';
import { apiClient } from './support/api-client.js';
import { invoiceDocuments, invoiceModel, readSse, SCHEMA, until, type SseEvent } from './support/jobs-support.js';

const KEY = 'jobs-key';
const ORG = 'org_jobs';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(latencyMs: number, env: Record<string, string> = {}) {
  const model = await invoiceModel(latencyMs);
  cleanups.push(() => model.fake.stop());
  const dataDir = await mkdtemp(join(tmpdir(), 'docevals-jobs-'));
  const app = await createStandaloneServer(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DOCEVALS_API_KEYS: `${KEY}:${ORG}`,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.fake.baseURL,
      DOCEVALS_CONCURRENCY: '4',
      ...env,
    },
    { log: () => {} },
  );
  const url = await app.listen();
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }), () => app.close(100));
  return { ...model, url, api: apiClient(url, KEY) };
}

async function createEvaluation(api: ReturnType<typeof apiClient>, count: number): Promise<string> {
  const created = await api('POST', '/v1/evals', {
    name: 'jobs',
    json_schema: SCHEMA,
    documents: invoiceDocuments(count),
    default_inference_settings: { model: 'gpt-4o-mini' },
  });
  expect(created.status).toBe(200);
  return created.body.id;
}

const FINAL = new Set(['completed', 'failed', 'cancelled']);

describe('iterations as jobs over REST', () => {
  it('runs 200 documents in the background; SSE delivers every document once across a reconnect with Last-Event-ID', async () => {
    const { url, api } = await setup(25);
    const evaluationId = await createEvaluation(api, 200);

    const started = Date.now();
    const response = await fetch(`${url}/v1/evals/${evaluationId}/iterations/create`, {
      method: 'POST',
      headers: { 'api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ background: true }),
    });
    const answeredIn = Date.now() - started;
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as any;
    // A generous bound: the answer does not wait for the 200 extractions (about 1.3 s here).
    expect(answeredIn).toBeLessThan(1_000);
    expect(['queued', 'running']).toContain(accepted.status);
    expect(accepted.progress.total).toBe(200);
    expect(response.headers.get('location')).toBe(`/v1/evals/${evaluationId}/iterations/${accepted.id}`);

    const eventsUrl = `${url}/v1/evals/${evaluationId}/iterations/${accepted.id}/events`;
    const first: SseEvent[] = [];
    for await (const event of readSse(eventsUrl, KEY)) {
      first.push(event);
      if (first.filter((e) => e.event === 'document').length === 50) break; // disconnect
    }
    const lastSeen = first[first.length - 1]!.id;
    const rest: SseEvent[] = [];
    for await (const event of readSse(eventsUrl, KEY, lastSeen)) rest.push(event);

    const documents = (events: SseEvent[]) => events.filter((e) => e.event === 'document');
    expect(documents(rest)).toHaveLength(150);
    const all = [...documents(first), ...documents(rest)];
    expect(new Set(all.map((e) => e.id)).size).toBe(200);
    expect(new Set(all.map((e) => e.data.document_id)).size).toBe(200);
    expect(all.every((e) => e.data.similarity === 1 && e.data.error === null)).toBe(true);
    const finals = [...first, ...rest].filter((e) => FINAL.has(e.event));
    expect(finals).toHaveLength(1);
    expect(finals[0]!.event).toBe('completed');
    expect(finals[0]!.data).toMatchObject({ status: 'completed', progress: { total: 200, succeeded: 200, failed: 0, pending: 0 } });
    expect(finals[0]!.data.usage).toEqual({ input_tokens: 20_000, output_tokens: 4_000, cost: expect.any(Number) });
    // progress events carry the id of the document event they follow, and count up
    const progress = rest.filter((e) => e.event === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(all.some((d) => d.id === p.id)).toBe(true);
    expect(progress[progress.length - 1]!.data.succeeded).toBe(200);

    // A finished iteration replays its final event and closes.
    const replay: SseEvent[] = [];
    for await (const event of readSse(eventsUrl, KEY)) replay.push(event);
    expect(replay.map((e) => e.event)).toEqual(['completed']);
    expect(replay[0]!.id).toBe(finals[0]!.id);
    // A client that has the final event (an EventSource reconnecting) is told to stop: 204.
    const after = await fetch(eventsUrl, { headers: { 'api-key': KEY, 'last-event-id': finals[0]!.id } });
    expect(after.status).toBe(204);

    const summary = await api('GET', `/v1/evals/${evaluationId}/iterations/${accepted.id}?view=summary`);
    expect(summary.body).toMatchObject({ status: 'completed', error: null, progress: { succeeded: 200, pending: 0 } });
    expect(summary.body.finished_at >= summary.body.started_at).toBe(true);
  }, 60_000);

  it('the tRPC subscription resumes with lastEventId the same way', async () => {
    const { url, api } = await setup(25);
    const evaluationId = await createEvaluation(api, 200);
    const client = createTRPCClient<DocevalsRouter>({
      links: [
        splitLink({
          condition: (op) => op.type === 'subscription',
          true: httpSubscriptionLink({
            url: `${url}/trpc`,
            EventSource,
            eventSourceOptions: () => ({
              fetch: (input: string | URL, init: any) => fetch(input, { ...init, headers: { ...init?.headers, 'api-key': KEY } }),
            }),
          }),
          false: httpLink({ url: `${url}/trpc`, headers: { 'api-key': KEY } }),
        }),
      ],
    });
    const accepted = await client.evals.iterations.createInBackground.mutate({ evaluation_id: evaluationId });
    expect(['queued', 'running']).toContain(accepted.status);

    const collect = (lastEventId: string | undefined, stopAfterDocuments: number | null) =>
      new Promise<Array<{ id: string; type: string; data: any }>>((resolve, reject) => {
        const got: Array<{ id: string; type: string; data: any }> = [];
        const subscription = client.evals.iterations.events.subscribe(
          { evaluation_id: evaluationId, iteration_id: accepted.id, ...(lastEventId ? { lastEventId } : {}) },
          {
            onData(tracked: any) {
              const event = tracked.data ?? tracked;
              got.push({ id: tracked.id, type: event.type, data: event.data });
              const documents = got.filter((e) => e.type === 'document').length;
              if ((stopAfterDocuments !== null && documents === stopAfterDocuments) || FINAL.has(event.type)) {
                subscription.unsubscribe();
                resolve(got);
              }
            },
            onError: reject,
          },
        );
      });
    const first = await collect(undefined, 50);
    const rest = await collect(first[first.length - 1]!.id, null);
    const documents = [...first, ...rest].filter((e) => e.type === 'document');
    expect(rest.filter((e) => e.type === 'document')).toHaveLength(150);
    expect(new Set(documents.map((e) => e.data.document_id)).size).toBe(200);
    expect(rest[rest.length - 1]!.type).toBe('completed');
  }, 60_000);

  it('cancel stops new extractor calls at once, keeps what was done, and only_missing completes it', async () => {
    const { url, api, fake, answered } = await setup(40);
    const evaluationId = await createEvaluation(api, 200);
    const accepted = await api('POST', `/v1/evals/${evaluationId}/iterations/create`, { background: true });
    expect(accepted.status).toBe(202);
    const iterationId = accepted.body.id;

    let documentEvents = 0;
    for await (const event of readSse(`${url}/v1/evals/${evaluationId}/iterations/${iterationId}/events`, KEY)) {
      if (event.event === 'document' && ++documentEvents === 40) break;
    }
    const cancelled = await api('POST', `/v1/evals/${evaluationId}/iterations/${iterationId}/cancel`);
    const callsAtCancel = fake.requests.length;
    const answeredAtCancel = [...answered.values()].reduce((a, b) => a + b, 0);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.requests.length).toBe(callsAtCancel); // no call started after the cancel was acknowledged

    const summary = (await api('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}?view=summary`)).body;
    expect(summary.status).toBe('cancelled');
    // 40 seen, plus those that completed while the 40th event travelled and the cancel was asked; the calls in
    // flight at the cancel were aborted, so nothing answered after it was kept.
    expect(summary.progress.succeeded).toBeGreaterThanOrEqual(40);
    expect(summary.progress.succeeded).toBeLessThanOrEqual(answeredAtCancel);
    expect(callsAtCancel - answeredAtCancel).toBeLessThanOrEqual(4);
    expect(summary.progress.failed).toBe(0);
    expect(summary.progress.pending).toBe(200 - summary.progress.succeeded);
    // The stream of a cancelled iteration replays its final event.
    const replay: SseEvent[] = [];
    for await (const event of readSse(`${url}/v1/evals/${evaluationId}/iterations/${iterationId}/events`, KEY)) replay.push(event);
    expect(replay.map((e) => e.event)).toEqual(['cancelled']);

    const kept = summary.progress.succeeded as number;
    const beforeResume = fake.requests.length;
    const resumed = await api('POST', `/v1/evals/${evaluationId}/iterations/${iterationId}/process`, { only_missing: true });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('completed');
    expect(resumed.body.progress).toEqual({ total: 200, succeeded: 200, failed: 0, pending: 0 });
    // Only the documents without a prediction were called again.
    expect(fake.requests.length - beforeResume).toBe(200 - kept);
  }, 60_000);

  it('provider down: a sync create answers 502 naming the iteration, which is kept as failed with the reason', async () => {
    const { api, state } = await setup(5);
    state.down = true;
    const evaluationId = await createEvaluation(api, 3);
    const refused = await api('POST', `/v1/evals/${evaluationId}/iterations/create`, {});
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('extractor_error');
    expect(refused.body.error.message).toMatch(/provider is down/);
    const iterationId = refused.body.error.iteration_id;
    expect(iterationId).toMatch(/^eval_iter_/);
    const summary = (await api('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}?view=summary`)).body;
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatch(/provider is down/);
    expect(summary.progress).toEqual({ total: 3, succeeded: 0, failed: 3, pending: 0 });
  }, 30_000);

  it('refuses a re-run while the iteration runs, and a bad background flag with the path', async () => {
    const { api } = await setup(50);
    const evaluationId = await createEvaluation(api, 20);
    const bad = await api('POST', `/v1/evals/${evaluationId}/iterations/create`, { background: 'yes' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues[0].path).toBe('background');
    const accepted = await api('POST', `/v1/evals/${evaluationId}/iterations/create`, { background: true });
    const again = await api('POST', `/v1/evals/${evaluationId}/iterations/${accepted.body.id}/process`, {});
    expect(again.status).toBe(409);
    await api('POST', `/v1/evals/${evaluationId}/iterations/${accepted.body.id}/cancel`);
    const unknown = await fetch(`${(await setup(1)).url}/v1/evals/${evaluationId}/iterations/nope/events`, { headers: { 'api-key': KEY } });
    expect(unknown.status).toBe(404);
  }, 30_000);
});

export { until };
