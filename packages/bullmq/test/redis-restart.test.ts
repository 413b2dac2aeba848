/**
 * docs/workers.md's persistence advice, checked: a Redis with the append-only file (`appendonly yes`) killed with
 * SIGKILL while an iteration waits in the queue comes back with it, and a worker started afterwards completes it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redisStorage } from '@docevals/adapters/redis';
import { createDocevals } from '@docevals/core';
import { openaiExtractor } from '@docevals/openai';
import { bullmqJobRunner, createDocevalsWorker } from '@docevals/bullmq';
import { startRedisServer } from '../../../test-support/redis-global-setup.js';
import { invoiceDocuments, invoiceModel, SCHEMA, until } from '../../../test-support/invoice-model.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('queued work across a Redis restart', () => {
  it('with AOF, an iteration enqueued before a kill -9 of Redis is run by a worker started after it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docevals-aof-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const aof = ['--appendonly', 'yes', '--appendfsync', 'always'];
    const first = await startRedisServer({ dir, extraArgs: aof });
    const model = await invoiceModel(5);
    cleanups.push(() => model.fake.stop());
    const extractors = () => [openaiExtractor({ apiKey: 'sk-test', baseURL: model.fake.baseURL, models: ['*'] })];
    const service = () =>
      createDocevals({ storage: redisStorage({ url: first.url }), extractors: extractors(), jobs: { runner: bullmqJobRunner({ connection: first.url, log: () => undefined }) } });

    const api = service();
    const evaluation = await api.evals.create('org_aof', { name: 'aof', json_schema: SCHEMA, documents: invoiceDocuments(20), default_inference_settings: { model: 'gpt-4o-mini' } });
    const iteration = await api.evals.iterations.create('org_aof', { evaluation_id: evaluation.id, background: true });
    expect(iteration.status).toBe('queued');
    await api.close();
    const killed = new Promise((r) => first.process.once('exit', r));
    first.process.kill('SIGKILL');
    await killed;

    const second = await startRedisServer({ dir, port: first.port, extraArgs: aof });
    cleanups.push(() => second.stop());
    const worker = await createDocevalsWorker({ storage: redisStorage({ url: second.url }), extractors: extractors(), connection: second.url, log: () => undefined });
    cleanups.push(() => worker.close());
    const reader = service();
    cleanups.push(() => reader.close());
    const summary = () => reader.evals.iterations.get('org_aof', { evaluation_id: evaluation.id, iteration_id: iteration.id, view: 'summary' });
    await until(async () => (await summary()).status === 'completed', 30_000, 'the iteration to complete after the restart');
    expect((await summary()).progress).toEqual({ total: 20, succeeded: 20, failed: 0, pending: 0 });
    for (let n = 0; n < 20; n++) expect(model.started.get(n)).toBe(1);
  });
});
