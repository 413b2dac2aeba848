// Benchmark (not a test): issue 12's scale figures over HTTP. `pnpm bench scale`.
// For each store (BENCH_STORES, default memory,lowdb,redis; a store whose adapter cannot open is reported as skipped):
//   - build: POST /v1/evals with N documents (default 10,000) and 5 imported iterations, in an empty store;
//   - PUT one annotation, GET one iteration with view=summary, GET one page of 100 predictions (medians of 9);
//   - create a 1,000-document evaluation in an empty store, then again once the store holds 20 others;
//   - 20 concurrent readers of iteration summaries at 1,000 documents × 5 iterations: req/s, p50/p99, errors.
// The server runs in this thread (createRestHandler on node:http, loopback); the concurrent load comes from a worker
// thread so that the client does not steal the server's event loop. Sizes: BENCH_DOCUMENTS, BENCH_ITERATIONS,
// BENCH_READ_REQUESTS.
import { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { memoryStorage } from '@docevals/adapters/memory';
import { apiKeyAuthenticator, createDocevals, type Storage } from '@docevals/core';
import { createRestHandler } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';
import { startRedisServer } from '../../../test-support/redis-global-setup.js';

const N = Number(process.env.BENCH_DOCUMENTS ?? 10_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5);
const READ_REQUESTS = Number(process.env.BENCH_READ_REQUESTS ?? 4_000);
const STORES = (process.env.BENCH_STORES ?? 'memory,lowdb,redis').split(',').map((s) => s.trim()).filter(Boolean);
const KEY = 'bench-key';
const ORG = 'org_bench';
const schema = { type: 'object', properties: { vendor: { type: 'string' }, total: { type: 'number' }, lines: { type: 'array', items: { type: 'string' } } } };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x < 10 ? x.toFixed(1) : Math.round(x)}`;

/** `n` distinct small documents (JSON files), named by `tag` so that evaluations do not share files. */
function documents(n: number, tag: string) {
  return Array.from({ length: n }, (_, i) => {
    const content = { vendor: `Vendor ${tag} ${i}`, total: i, lines: [`line ${i}`, `line ${i + 1}`] };
    return {
      mime_data: { filename: `${tag}-${i}.json`, url: `data:application/json;base64,${Buffer.from(JSON.stringify(content)).toString('base64')}` },
      annotation: content,
    };
  });
}

/** Imported iterations: predictions slightly off the annotations, so metrics are not trivial. */
function importedIterations(n: number, count: number) {
  return Array.from({ length: count }, (_, k) => ({
    inference_settings: { model: `model-${k}` },
    predictions: Array.from({ length: n }, (_, i) => ({ prediction: { vendor: `Vendor ${i + k}`, total: i, lines: [`line ${i + 1}`, `line ${i}`] } })),
  }));
}

interface Opened {
  storage: Storage;
  cleanup(): Promise<void>;
}

async function openStore(name: string): Promise<Opened> {
  if (name === 'memory') return { storage: memoryStorage(), cleanup: async () => undefined };
  if (name === 'lowdb') {
    const dir = mkdtempSync(join(tmpdir(), 'docevals-scale-'));
    const { lowdbStorage } = await import('@docevals/adapters/lowdb');
    const storage = lowdbStorage({ dir });
    return { storage, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (name === 'redis') {
    const server = await startRedisServer();
    const { redisStorage } = await import('@docevals/adapters/redis');
    const storage = redisStorage({ url: server.url });
    return { storage, cleanup: () => server.stop() };
  }
  throw new Error(`unknown store ${name}`);
}

interface Served {
  url: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; bytes: number }>;
  close(): Promise<void>;
}

async function serve(storage: Storage): Promise<Served> {
  const docevals = createDocevals({ storage, limits: { maxDocumentsPerEvaluation: Math.max(10_000, N) } });
  const rest = createRestHandler({
    docevals,
    authenticate: apiKeyAuthenticator({ keys: { [KEY]: ORG } }),
    limits: { maxBodyBytes: 512 * 1024 * 1024 },
    onError: (e) => console.error(e),
  });
  const server: Server = createServer(toNodeHandler(rest));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async call(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { 'api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : null, bytes: text.length };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

function expectOk(r: { status: number; json: any }, what: string) {
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
}

async function buildEvaluation(api: Served, n: number, iterations: number, tag: string) {
  const r = await api.call('POST', '/v1/evals', { name: tag, json_schema: schema, documents: documents(n, tag), iterations: importedIterations(n, iterations) });
  expectOk(r, `build ${tag}`);
  return r;
}

const LOAD = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.on('message', async ({ url, count, clients }) => {
  let next = 0;
  let errors = 0;
  const latencies = [];
  const client = async () => {
    while (next < count) {
      next++;
      const t = performance.now();
      const response = await fetch(url, { headers: { 'api-key': workerData.key } });
      await response.arrayBuffer();
      latencies.push(performance.now() - t);
      if (response.status !== 200) errors++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, client));
  parentPort.postMessage({ ms: performance.now() - started, latencies, errors });
});
`;

async function concurrentReaders(url: string, count: number, clients: number) {
  const worker = new Worker(LOAD, { eval: true, workerData: { key: KEY } });
  try {
    const run = () =>
      new Promise<{ ms: number; latencies: number[]; errors: number }>((resolve) => {
        worker.once('message', resolve);
        worker.postMessage({ url, count, clients });
      });
    await run(); // warm-up
    const { ms: total, latencies, errors } = await run();
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    return { rps: (count / total) * 1000, p50: at(0.5), p99: at(0.99), errors };
  } finally {
    await worker.terminate();
  }
}

async function benchStore(name: string): Promise<string[]> {
  const lines: string[] = [];
  const say = (line: string) => {
    console.log(`[${name}] ${line}`);
    lines.push(`| ${name} | ${line} |`);
  };

  // 1. N documents × ITERATIONS iterations.
  {
    const opened = await openStore(name);
    const api = await serve(opened.storage);
    try {
      const build = await timed(() => buildEvaluation(api, N, ITERATIONS, 'big'));
      const evaluation = build.value.json;
      say(`build ${N} documents × ${ITERATIONS} imported iterations (POST /v1/evals, empty store) | ${ms(build.ms)} ms, response ${(build.value.bytes / 1e6).toFixed(1)} MB`);
      const ids: string[] = evaluation.documents.map((d: { id: string }) => d.id);
      const iterationId: string = evaluation.iterations[ITERATIONS - 1].id;

      const puts: number[] = [];
      for (let k = 0; k < 9; k++) {
        const id = ids[Math.floor(((k + 0.5) / 9) * ids.length)]!;
        const t = await timed(() => api.call('PUT', `/v1/evals/${evaluation.id}/documents/${id}`, { annotation: { vendor: `edited ${k}`, total: k } }));
        expectOk(t.value, 'PUT annotation');
        puts.push(t.ms);
      }
      say(`PUT one annotation (${N} documents, ${ITERATIONS} iterations) | ${ms(median(puts))} ms (median of 9)`);

      const summaries: number[] = [];
      for (let k = 0; k < 9; k++) {
        const t = await timed(() => api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iterationId}?view=summary`));
        expectOk(t.value, 'GET summary');
        summaries.push(t.ms);
      }
      say(`GET an iteration with view=summary | ${ms(median(summaries))} ms (median of 9)`);

      const pages: number[] = [];
      for (let k = 0; k < 9; k++) {
        const after = ids[Math.floor(((k + 0.5) / 9) * (ids.length - 100))]!;
        const t = await timed(() => api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iterationId}/predictions?limit=100&after=${after}`));
        expectOk(t.value, 'GET predictions page');
        if (t.value.json.data.length !== 100) throw new Error('a page of 100 predictions was expected');
        pages.push(t.ms);
      }
      say(`GET one page of 100 predictions | ${ms(median(pages))} ms (median of 9)`);

      const full = await timed(() => api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iterationId}`));
      expectOk(full.value, 'GET full iteration');
      say(`GET one whole iteration (interface shape, streamed) | ${ms(full.ms)} ms, ${(full.value.bytes / 1e6).toFixed(1)} MB`);
    } finally {
      await api.close();
      await opened.storage.close();
      await opened.cleanup();
    }
  }

  // 2. A 1,000-document evaluation in an empty store, then with 20 others stored.
  {
    const opened = await openStore(name);
    const api = await serve(opened.storage);
    try {
      // The first three in a store holding 0, 1, 2 others (their median), the last three once it holds 20 to 22.
      const early: number[] = [];
      for (let k = 0; k < 3; k++) early.push((await timed(() => buildEvaluation(api, 1_000, 0, `first${k}`))).ms);
      for (let k = 0; k < 17; k++) await buildEvaluation(api, 1_000, 0, `other${k}`);
      const crowded: number[] = [];
      for (let k = 0; k < 3; k++) crowded.push((await timed(() => buildEvaluation(api, 1_000, 0, `late${k}`))).ms);
      const ratio = (median(crowded) / median(early)).toFixed(2);
      say(`create a 1,000-document evaluation: store holding 0-2 others / 20-22 others (medians of 3) | ${ms(median(early))} ms / ${ms(median(crowded))} ms (ratio ${ratio})`);

      // 3. 20 concurrent readers of summaries at 1,000 documents × ITERATIONS.
      const readers = await buildEvaluation(api, 1_000, ITERATIONS, 'readers');
      const target = `${api.url}/v1/evals/${readers.json.id}/iterations/${readers.json.iterations[0].id}?view=summary`;
      const load = await concurrentReaders(target, READ_REQUESTS, 20);
      say(`20 concurrent readers of view=summary (1,000 documents × ${ITERATIONS} iterations, ${READ_REQUESTS} requests) | ${Math.round(load.rps)} req/s, p50 ${ms(load.p50)} ms, p99 ${ms(load.p99)} ms, ${load.errors} errors`);
    } finally {
      await api.close();
      await opened.storage.close();
      await opened.cleanup();
    }
  }
  return lines;
}

console.log(`scale bench: ${N} documents × ${ITERATIONS} iterations; ${cpus().length} cores (${cpus()[0]?.model ?? '?'}); node ${process.version}; ${new Date().toISOString()}`);
const table: string[] = ['| store | measure | figure |', '|---|---|---|'];
for (const name of STORES) {
  try {
    table.push(...(await benchStore(name)));
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    console.log(`[${name}] skipped: ${reason}`);
    table.push(`| ${name} | skipped | ${reason} |`);
  }
}
console.log(`\n${table.join('\n')}`);
