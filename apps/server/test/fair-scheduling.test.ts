/**
 * Fair scheduling over HTTP (issue 26): the standalone server in process mode, two organizations' keys, a loopback
 * OpenAI-compatible model with latency. A posts 200 background iterations (20 accepted, the rest 429), then B one:
 * B's first document starts at once and B completes within 2x its time on an idle server (the mean of two runs).
 * On Redis (`REDIS_URL`) and on lowdb (`DATA_DIR` alone, every write of every organization through one queue).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createStandaloneServer } from '../src/app.js';
import { apiClient } from './support/api-client.js';
import { invoiceDocuments, invoiceModel, SCHEMA, until } from './support/jobs-support.js';

const SLACK = Number(process.env.DOCEVALS_TEST_SLACK ?? 2);
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(['redis', 'lowdb'] as const)('fair scheduling between organizations (standalone server, in process, %s)', (store) => {
  it("200 background iterations from A, then one from B: A's 21st is 429, B starts at once and ends within 2x its idle time", async () => {
    const model = await invoiceModel(20);
    cleanups.push(() => model.fake.stop());
    const calls: Array<{ n: number; at: number }> = [];
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    let holding = false;
    const handle = model.fake.handle;
    model.fake.handle = async (request, index) => {
      const n = Number(/INV-(\d+)/.exec(JSON.stringify(request.body))?.[1] ?? -1);
      if (holding && n < 1000) await hold;
      calls.push({ n, at: performance.now() });
      return handle(request, index);
    };
    const dataDir = await mkdtemp(join(tmpdir(), 'docevals-fair-'));
    const app = await createStandaloneServer(
      {
        DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DOCEVALS_API_KEYS: 'key-a:org_a,key-b:org_b',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.fake.baseURL,
        DOCEVALS_RATE_LIMIT: '0',
        ...(store === 'redis'
          ? { REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: `fair${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}:` }
          : {}),
        DOCEVALS_CONCURRENCY: '2',
        DOCEVALS_MAX_RUNNING_ITERATIONS: '2',
      },
      { log: () => {} },
    );
    const url = await app.listen();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }), () => app.close(100));
    const [a, b] = [apiClient(url, 'key-a'), apiClient(url, 'key-b')];
    const evaluation = async (api: typeof a, documents: ReturnType<typeof invoiceDocuments>) =>
      (await api('POST', '/v1/evals', { name: 'fair', json_schema: SCHEMA, documents, default_inference_settings: { model: 'gpt-4o-mini' } })).body.id as string;
    const aEval = await evaluation(a, invoiceDocuments(20));
    const bEval = await evaluation(b, invoiceDocuments(1002).slice(1000));
    const runB = async () => {
      const started = performance.now();
      const accepted = await b('POST', `/v1/evals/${bEval}/iterations/create`, { background: true });
      expect(accepted.status).toBe(202);
      const id = accepted.body.id as string;
      await until(async () => (await b('GET', `/v1/evals/${bEval}/iterations/${id}?view=summary`)).body.status === 'completed', 60_000, "B's iteration");
      const first = calls.find((c) => c.n >= 1000 && c.at >= started)!;
      return { ms: performance.now() - started, firstMs: first.at - started };
    };
    await runB();
    const idleRuns = [await runB(), await runB()];
    const idle = { ms: (idleRuns[0]!.ms + idleRuns[1]!.ms) / 2, firstMs: (idleRuns[0]!.firstMs + idleRuns[1]!.firstMs) / 2 };

    holding = true;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await a('POST', `/v1/evals/${aEval}/iterations/create`, { background: true })).status);
    const rest = await Promise.all(Array.from({ length: 179 }, () => a('POST', `/v1/evals/${aEval}/iterations/create`, { background: true })));
    statuses.push(...rest.map((r) => r.status));
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(202));
    expect(statuses.slice(20)).toEqual(Array(180).fill(429));
    expect(rest[0]!.body.error).toMatchObject({ code: 'rate_limited', retry_after: 5 });
    const refused = await fetch(`${url}/v1/evals/${aEval}/iterations/create`, {
      method: 'POST',
      headers: { 'api-key': 'key-a', 'content-type': 'application/json' },
      body: JSON.stringify({ background: true }),
    });
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '5']);
    release();
    await until(() => calls.filter((c) => c.n < 1000).length >= 8, 30_000, "A's backlog running");
    const busy = await runB();
    const aLeft = 20 * 20 - calls.filter((c) => c.n < 1000).length;
    console.log(
      `[fair ${store}] B idle: ${Math.round(idle.ms)} ms (first call ${Math.round(idle.firstMs)} ms); beside A's 20 iterations: ${Math.round(busy.ms)} ms (first call ${Math.round(busy.firstMs)} ms); A's calls left ${aLeft}`,
    );
    expect(aLeft).toBeGreaterThan(100);
    expect(busy.firstMs).toBeLessThanOrEqual(2_000 * SLACK);
    expect(busy.ms).toBeLessThanOrEqual(2 * idle.ms * SLACK);
  });
});
