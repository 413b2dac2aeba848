// Benchmark (not a test): requests per second of GET /v1/evals/{id}/iterations through createRestHandler on a real
// node:http server, against a bare Hono route on @hono/node-server answering the same JSON. `pnpm bench list-iterations`.
// The load comes from a worker thread (its own event loop: the client does not steal the server's), with a few
// concurrent fetch (undici) clients on loopback, keep-alive, a fixed number of requests after a warm-up. Variants
// take turns round by round and the best round of each counts, so a noisy neighbour hurts them all alike.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { memoryStorage } from '@docevals/adapters/memory';
import { apiKeyAuthenticator, createDocevals, type Authenticate } from '@docevals/core';
import { createRestHandler } from '../src/index.js';
import { toNodeHandler } from '../src/node/index.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2_000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const KEY = 'bench-key';

const LOAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { key, clients } = workerData;
async function run(url, count) {
  let next = 0;
  let failed = 0;
  const client = async () => {
    while (next < count) {
      next++;
      const response = await fetch(url, { headers: { 'api-key': key } });
      if (response.status !== 200) failed++;
      await response.arrayBuffer();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, client));
  return { ms: performance.now() - started, failed };
}
parentPort.on('message', async ({ url, count }) => parentPort.postMessage(await run(url, count)));
`;

const worker = new Worker(LOAD, { eval: true, workerData: { key: KEY, clients: CLIENTS } });
/** Requests per second of one run of `count` requests against `url`, from the worker thread. */
function run(url: string, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    worker.once('message', ({ ms, failed }: { ms: number; failed: number }) =>
      failed > 0 ? reject(new Error(`${failed} requests to ${url} failed`)) : resolve((count / ms) * 1000),
    );
    worker.postMessage({ url, count });
  });
}

async function listen(server: Server): Promise<string> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const stop = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

// An evaluation of 3 documents with 5 local-rules iterations: a realistic list, about 10 kB of JSON.
const docevals = createDocevals({ storage: memoryStorage() });
const text = (n: number) => `data:text/plain;base64,${Buffer.from(`Invoice number: INV-${n}\nTotal: ${n * 10}\n`).toString('base64')}`;
const evaluation = await docevals.evals.create('org_bench', {
  name: 'Bench',
  json_schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } },
  documents: [1, 2, 3].map((n) => ({
    mime_data: { filename: `i${n}.txt`, url: text(n) },
    annotation: { invoice_number: `INV-${n}`, total: n * 10 },
  })),
});
for (let i = 0; i < 5; i++) {
  await docevals.evals.iterations.create('org_bench', {
    evaluation_id: evaluation.id,
    inference_settings: { model: 'local-rules', temperature: i / 10 },
  });
}
const path = `/v1/evals/${evaluation.id}/iterations`;
const payload = await docevals.evals.iterations.list('org_bench', { evaluation_id: evaluation.id });
const bytes = Buffer.byteLength(JSON.stringify(payload));

// The variants. All keep the process's global Request/Response (overrideGlobalObjects: false), as a library must.
const variants: Array<{ name: string; server: Server; best: number }> = [];
const add = async (name: string, server: Server) => {
  await listen(server);
  variants.push({ name, server, best: 0 });
};
// 1. docevals: createRestHandler behind toNodeHandler, on node:http.
const handler = createRestHandler({ docevals, authenticate: apiKeyAuthenticator({ keys: { [KEY]: 'org_bench' } }) });
await add('docevals createRestHandler + toNodeHandler', createServer(toNodeHandler(handler)));
// 2. A bare Hono route answering the same object (JSON.stringify included).
const bare = new Hono();
bare.get('/v1/evals/:evaluation_id/iterations', (c) => c.json(payload));
await add('bare Hono route, same JSON', serve({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }) as Server);
// 3. A bare Hono route calling the core itself (no authentication, no error mapping): the gap between 1 and 3 is
// the REST layer; between 3 and 2, the service and its storage.
const direct = new Hono();
direct.get('/v1/evals/:evaluation_id/iterations', async (c) =>
  c.json(await docevals.evals.iterations.list('org_bench', { evaluation_id: c.req.param('evaluation_id') })),
);
await add('bare Hono route calling the core', serve({ fetch: direct.fetch, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }) as Server);

for (const variant of variants) await run(`${await listen(variant.server)}${path}`, WARMUP);
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) {
    variant.best = Math.max(variant.best, await run(`${await listen(variant.server)}${path}`, REQUESTS));
  }
}
for (const variant of variants) await stop(variant.server);
await worker.terminate();
await docevals.close();

// In process, without sockets: what the REST layer itself costs per request (Hono routing, authentication, error
// mapping, Response), with a service that answers an empty list at once.
const emptyService = { ...docevals, evals: { ...docevals.evals, iterations: { ...docevals.evals.iterations, list: async () => ({ data: [] }) } } };
const layer = async (authenticate: Authenticate) => {
  const h = createRestHandler({ docevals: emptyService, authenticate });
  const request = new Request(`http://bench${path}`, { headers: { 'api-key': KEY } });
  const count = 20_000;
  for (let i = 0; i < 2_000; i++) await (await h(request)).text();
  const started = performance.now();
  for (let i = 0; i < count; i++) await (await h(request)).text();
  return ((performance.now() - started) / count) * 1000;
};
const layerMicros = await layer(apiKeyAuthenticator({ keys: { [KEY]: 'org_bench' } }));
const layerNoAuthMicros = await layer(() => 'org_bench');

const [rest, bareRoute, core] = variants as [typeof variants[0], typeof variants[0], typeof variants[0]];
const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(7);
console.log(
  `GET /v1/evals/{id}/iterations: ${bytes} bytes of JSON; ${REQUESTS} requests per round, best of ${ROUNDS} rounds, ` +
    `${CLIENTS} concurrent clients; node ${process.version}`,
);
for (const variant of variants) console.log(`  ${variant.name.padEnd(44)} ${fmt(variant.best)} req/s`);
console.log(`  ratio docevals / bare Hono route             ${(rest.best / bareRoute.best).toFixed(2)}`);
console.log(`  ratio docevals / Hono calling the core       ${(rest.best / core.best).toFixed(2)}  (the REST layer's own cost)`);
console.log(`  in process, empty service: ${layerMicros.toFixed(1)} µs per request (${layerNoAuthMicros.toFixed(1)} µs without apiKeyAuthenticator)`);
await docevals.close();
