// Benchmark (not a test): issue 12's scale figures over HTTP. `pnpm bench scale`.
// For each store (BENCH_STORES, default memory,lowdb,redis; postgres on request; a store whose adapter cannot open is reported as skipped):
//   - build: POST /v1/evals with N documents (default 10,000) and 5 imported iterations, in an empty store (timed from
//     the request sent to the response received: the client's JSON.stringify and JSON.parse, which share this thread,
//     are outside the figure and shown beside it);
//   - PUT one annotation, GET one iteration with view=summary, GET one page of 100 predictions (medians of 9);
//   - create a 1,000-document evaluation in an empty store, then again once the store holds 20 others;
//   - 20 concurrent readers of iteration summaries at 1,000 documents × 5 iterations: req/s, p50/p99, errors.
// The server runs in this thread (createRestHandler on node:http, loopback); the concurrent load comes from a worker
// thread so that the client does not steal the server's event loop. Sizes: BENCH_DOCUMENTS, BENCH_ITERATIONS,
// BENCH_READ_REQUESTS; BENCH_BUILD_ONLY=1 stops after the build; BENCH_KEEP_LOWDB=1 leaves lowdb's folder (see openStore).
import { cpus, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { buildEvaluation, expectOk, KEY, median, ms, openStore, rowsPerStore, serve as serveWith, timed } from './http-bench.js';

const N = Number(process.env.BENCH_DOCUMENTS ?? 10_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5);
const READ_REQUESTS = Number(process.env.BENCH_READ_REQUESTS ?? 4_000);
/** BENCH_BUILD_ONLY=1: the build alone (for before/after pairs and profiles of it). */
const BUILD_ONLY = process.env.BENCH_BUILD_ONLY === '1';
const STORES = (process.env.BENCH_STORES ?? 'memory,lowdb,redis').split(',').map((s) => s.trim()).filter(Boolean);
const serve = (storage: Parameters<typeof serveWith>[0]) => serveWith(storage, N);

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
  // The machine is shared: every figure carries the load average (1 min) at the moment it was taken.
  const say = (line: string) => {
    const load = `load ${loadavg()[0]!.toFixed(1)}`;
    console.log(`[${name}] ${line} | ${load}`);
    lines.push(`| ${name} | ${line} | ${load} |`);
  };

  // 1. N documents × ITERATIONS iterations.
  {
    const opened = await openStore(name);
    const api = await serve(opened.storage);
    try {
      const cpuBefore = process.cpuUsage();
      const faultsBefore = process.resourceUsage().minorPageFault;
      const serverBefore = opened.serverCpuMs?.();
      const build = await timed(() => buildEvaluation(api, N, ITERATIONS, 'big'));
      const cpu = process.cpuUsage(cpuBefore);
      // Minor page faults of this process during the build: each fresh heap page costs one, and on a VM that hands
      // freed memory back to its host they are a large part of the figure (allocation is the cost).
      const faults = process.resourceUsage().minorPageFault - faultsBefore;
      const serverCpu = serverBefore === undefined ? '' : `; the store server's CPU ${ms(opened.serverCpuMs!() - serverBefore)} ms`;
      const evaluation = build.value.json;
      // The figure is the server's (request sent to response received); in brackets: with the in-thread client's
      // stringify and parse, and the CPU time of this process (server and client; a store server's own not included),
      // which other agents' load slows far less than the wall clock.
      const cpuMs = (cpu.user + cpu.system) / 1000;
      say(`build ${N} documents × ${ITERATIONS} imported iterations (POST /v1/evals, empty store) | ${ms(build.value.ms)} ms (${ms(build.ms)} ms with the client's work; CPU ${ms(cpuMs)} ms, the kernel's ${ms(cpu.system / 1000)} of it, ${faults.toLocaleString('en-US')} page faults${serverCpu}), response ${(build.value.bytes / 1e6).toFixed(1)} MB`);
      if (BUILD_ONLY) return lines;
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
const table: string[] = ['| store | measure | figure | load |', '|---|---|---|---|'];
table.push(...(await rowsPerStore(STORES, benchStore, (name, reason) => `| ${name} | skipped | ${reason} | |`)));
console.log(`\n${table.join('\n')}`);
