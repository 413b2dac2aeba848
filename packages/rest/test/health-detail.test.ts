/**
 * Issue 26: `GET /health?detail=true` shows the caller's organization its own queued and running iterations per
 * model, and the job runner's fleet totals without model names: organization A never sees B's model names.
 */
import { inProcessJobRunner, type Extractor } from '@docevals/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KEY_A, KEY_B, startRestServer, type RestServer } from './support/rest-server.js';

let release!: () => void;
const gate = new Promise<void>((resolve) => (release = resolve));
const held: Extractor = { name: 'held', models: ['held-a-model', 'held-b-secret-model'], extract: async () => (await gate, { data: { total: 1 } }) };

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({
    docevals: {
      extractors: [held],
      jobs: {
        // A queue runner's stats, as `bullmq` reports them, over the in-process runs: per model, by name.
        runner: (work) =>
          Object.assign(inProcessJobRunner(work, { maxRunningIterations: 4 }), {
            stats: async () => ({
              runner: 'bullmq',
              workers: 2,
              plans: { depth: 0, running: 0 },
              models: {
                'held-a-model': { depth: 1, running: 1, completed: 10, failed: 1 },
                'held-b-secret-model': { depth: 3, running: 2, completed: 5, failed: 0 },
              },
            }),
          }),
      },
    },
  });
});
afterAll(async () => {
  release();
  await api.close();
});

async function startHeld(key: string, model: string) {
  const evaluation = await api.call('POST', '/v1/evals', {
    key,
    body: {
      name: 'health',
      json_schema: { type: 'object', properties: { total: { type: 'number' } } },
      documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('a').toString('base64')}` }, annotation: { total: 1 } }],
      default_inference_settings: { model },
    },
  });
  const iteration = await api.call('POST', `/v1/evals/${evaluation.body.id}/iterations/create`, { key, body: { background: true } });
  expect(iteration.status).toBe(202);
}

it("answers each organization its own models and counts, and the fleet's totals without names", async () => {
  await startHeld(KEY_A, 'held-a-model');
  await startHeld(KEY_B, 'held-b-secret-model');
  await startHeld(KEY_B, 'held-b-secret-model');

  const a = await api.call('GET', '/health?detail=true', { key: KEY_A });
  expect(a.status).toBe(200);
  expect(JSON.stringify(a.body)).not.toContain('held-b-secret-model');
  const fleet = { workers: 2, plans: { depth: 0, running: 0 }, models: 2, depth: 4, running: 3, completed: 15, failed: 1 };
  expect(a.body.jobs.fleet).toEqual(fleet);
  expect(a.body.jobs.runner).toBe('bullmq');
  const own = a.body.jobs.organization;
  expect(Object.keys(own.models)).toEqual(['held-a-model']);
  expect(own.queued + own.running).toBe(1);

  const b = await api.call('GET', '/health?detail=true', { key: KEY_B });
  expect(JSON.stringify(b.body)).not.toContain('held-a-model');
  expect(b.body.jobs.fleet).toEqual(fleet);
  expect(Object.keys(b.body.jobs.organization.models)).toEqual(['held-b-secret-model']);
  expect(b.body.jobs.organization.queued + b.body.jobs.organization.running).toBe(2);
});
