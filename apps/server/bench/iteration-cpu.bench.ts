// Benchmark (not a test): what one document costs the pipeline, and what the standalone server's tracing adds to it.
// `pnpm bench iteration-cpu`.
//
// A whole background iteration through the service (`iterations.create`, then its events to the final one), in this
// process, on the in-process runner: BENCH_DOCUMENTS invoices (default 400), 8 calls in flight, the OpenAI extractor
// (its default undici transport) against a loopback OpenAI-compatible server in a child process answering after
// BENCH_DELAY_MS (default 0: every millisecond of CPU is the pipeline's). The figure is this process's CPU (user +
// system, garbage collector threads included) per document; the wall time is given against the bound
// documents x delay / 8 when the delay is not 0.
//
// Two contenders, in alternate rounds (A B A B ...) so that load from elsewhere hits both alike, compared pair by
// pair: `none`, no tracer provider registered (an embedding host that configures none: every span is the API's
// no-op), and `server`, the standalone server's set-up when no exporter is configured (the SDK's tracer provider,
// spans recorded for the Prometheus metrics read from them, nothing exported).
//
// BENCH_STORE: memory (default) or lowdb. BENCH_ROUNDS: rounds per contender (default 6).
// With BENCH_PROFILE=1 the rounds run under the inspector's CPU profiler and the CPU is shared out per part
// (transport, OpenAI SDK, store, service, tracing, validation, metrics, GC...), `none` and `server` rounds apart.
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOnSampler, createAlwaysRecordSampler, ParentBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { createDocevals, type Storage } from '@docevals/core';
import { memoryStorage } from '@docevals/core/storage-kit';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { openaiExtractor } from '@docevals/openai';
import { DocevalsMetrics } from '../src/observability/metrics.js';

const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 400);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 0);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const STORE = process.env.BENCH_STORE ?? 'memory';
const PROFILE = process.env.BENCH_PROFILE === '1';
const CONCURRENCY = 8;
const ORG = 'org_bench';
const BOUND_MS = (DOCUMENTS * DELAY_MS) / CONCURRENCY;

const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };
const text = (s: string) => `data:text/plain;base64,${Buffer.from(s).toString('base64')}`;

/** The fake provider in its own process (as a real one is), answering every call with the same invoice. */
async function provider(): Promise<{ baseURL: string; reset(): Promise<void>; stop(): void }> {
  const child = fork(fileURLToPath(new URL('../../../packages/openai/bench/fake-server-process.ts', import.meta.url)), [String(DELAY_MS)]);
  const next = (type: string) =>
    new Promise<{ baseURL?: string }>((resolve) => {
      const on = (message: { type?: string; baseURL?: string }) => {
        if (message?.type !== type) return;
        child.off('message', on);
        resolve(message);
      };
      child.on('message', on);
    });
  const { baseURL } = await next('ready');
  return {
    baseURL: baseURL!,
    reset: async () => {
      const done = next('reset');
      child.send({ type: 'reset' });
      await done;
    },
    stop: () => child.kill(),
  };
}

/** The standalone server's tracer set-up without an exporter (src/observability/telemetry.ts), switchable. */
function tracing() {
  const metrics = new DocevalsMetrics();
  const provider = new TracerProvider({
    sampler: createAlwaysRecordSampler(new ParentBasedSampler({ root: new AlwaysOnSampler() })),
    spanProcessors: [metrics.spanProcessor],
  });
  const manager = new AsyncLocalStorageContextManager();
  return {
    on() {
      context.setGlobalContextManager(manager.enable());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      trace.setGlobalTracerProvider(provider);
    },
    off() {
      trace.disable();
      propagation.disable();
      context.disable();
      manager.disable();
    },
    metrics,
  };
}

async function store(): Promise<{ storage: Storage; cleanup: () => Promise<void> }> {
  if (STORE === 'memory') return { storage: memoryStorage(), cleanup: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'docevals-iteration-cpu-'));
  return { storage: lowdbStorage({ dir }), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Self time per part of a CPU profile: each sample's function, classed by its file (and name for the builtins). */
function parts(profile: { nodes: Array<{ id: number; callFrame: { url: string; functionName: string } }>; samples: number[]; timeDeltas: number[] }) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!;
    const part = partOf(frame.url, frame.functionName);
    totals.set(part, (totals.get(part) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  totals.delete('(idle)');
  return totals;
}

function partOf(url: string, name: string): string {
  if (name === '(idle)' || name === '(program)') return name === '(idle)' ? '(idle)' : 'V8 and native (program)';
  if (name === '(garbage collector)') return 'garbage collector';
  const rules: Array<[RegExp, string]> = [
    [/@opentelemetry|telemetry\/index|observability\/metrics|prom-client/, 'tracing and metrics (OpenTelemetry, prom-client)'],
    [/undici|undici-fetch/, 'HTTP transport (undici)'],
    [/node_modules\/.*openai\//, 'OpenAI SDK'],
    [/packages\/openai\/src/, 'OpenAI extractor (request, response, prices)'],
    [/ajv|json-schema|validate/, 'validation (ajv, zod)'],
    [/zod/, 'validation (ajv, zod)'],
    [/core\/src\/metrics|identifiers/, 'metrics (compareDocuments) and ids'],
    [/storage-kit|adapters\/src|lowdb|traced-storage/, 'store'],
    [/core\/src\/service\/jobs/, 'jobs (runner, leases, events)'],
    [/core\/src\/extraction/, 'extraction runner (routing, retries, spans)'],
    [/core\/src/, 'service (other core)'],
  ];
  for (const [pattern, part] of rules) if (pattern.test(url)) return part;
  // Node's own JavaScript by module (node:internal/streams/...: streams), its native functions by name.
  const internal = /^node:(?:internal\/)?([a-z_]+)/.exec(url);
  if (internal) return `Node: ${internal[1]}`;
  if (url === '') return `native: ${name || '(anonymous)'}`;
  return `other (${url.replace(/^.*node_modules\/\.pnpm\/([^/]+).*$/, '$1').slice(0, 60)})`;
}

async function main() {
  const server = await provider();
  const { storage, cleanup } = await store();
  const docevals = createDocevals({
    storage,
    extractors: [openaiExtractor({ apiKey: 'sk-bench', baseURL: server.baseURL, logprobs: false })],
    extraction: { concurrency: CONCURRENCY, retries: 0 },
    jobs: { maxRunningIterations: 1 },
  });
  const documents = Array.from({ length: DOCUMENTS }, (_, i) => ({
    mime_data: { filename: `inv-${i}.txt`, url: text(`Invoice number: INV-${i}\nTotal: ${i + 1}\n`) },
    annotation: { invoice_number: 'INV-1', total: 12.5 },
  }));
  const evaluation = await docevals.evals.create(ORG, { name: 'bench', json_schema: SCHEMA, documents, default_inference_settings: { model: 'gpt-4o-mini' } });
  const switches = tracing();
  const session = PROFILE ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
  }

  async function round(mode: 'none' | 'server') {
    if (mode === 'server') switches.on();
    else switches.off();
    await server.reset();
    if (session) await session.post('Profiler.start');
    const cpu = process.cpuUsage();
    const started = performance.now();
    const created = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    let final = '';
    for await (const event of docevals.evals.iterations.events(ORG, { evaluation_id: evaluation.id, iteration_id: created.id })) {
      if (event.type !== 'document' && event.type !== 'progress') final = event.type;
    }
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const profile = session ? ((await session.post('Profiler.stop')) as { profile: Parameters<typeof parts>[0] }).profile : undefined;
    if (final !== 'completed') throw new Error(`the iteration ended ${final}`);
    // Each round's iteration goes (the evaluation keeps its documents): rounds stay alike.
    await docevals.evals.iterations.delete(ORG, { evaluation_id: evaluation.id, iteration_id: created.id });
    return { cpuMs: (used.user + used.system) / 1000, wall, profile };
  }

  console.log(
    `${DOCUMENTS} documents, ${CONCURRENCY} in flight, ${DELAY_MS} ms model, ${STORE} store, ${ROUNDS} rounds a contender; ` +
      `${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}${PROFILE ? ', profiled' : ''}`,
  );
  await round('none');
  await round('server');
  const results = { none: [] as number[], server: [] as number[] };
  const walls = { none: [] as number[], server: [] as number[] };
  const ratios: number[] = [];
  const wallRatios: number[] = [];
  const shares = { none: new Map<string, number>(), server: new Map<string, number>() };
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which goes first: a drift in the machine's speed hits both orders.
    const order: Array<'none' | 'server'> = i % 2 === 0 ? ['none', 'server'] : ['server', 'none'];
    const pair: Record<string, { cpuMs: number; wall: number }> = {};
    for (const mode of order) {
      const r = await round(mode);
      pair[mode] = r;
      results[mode].push(r.cpuMs / DOCUMENTS);
      walls[mode].push(r.wall);
      if (r.profile) for (const [part, ms] of parts(r.profile)) shares[mode].set(part, (shares[mode].get(part) ?? 0) + ms);
    }
    ratios.push(pair.server!.cpuMs / pair.none!.cpuMs);
    wallRatios.push(pair.server!.wall / pair.none!.wall);
    console.log(
      `  pair ${i + 1}: none ${(pair.none!.cpuMs / DOCUMENTS).toFixed(3)} ms CPU/document (${pair.none!.wall.toFixed(0)} ms), ` +
        `server ${(pair.server!.cpuMs / DOCUMENTS).toFixed(3)} ms (${pair.server!.wall.toFixed(0)} ms), CPU ratio ${ratios[i]!.toFixed(3)}`,
    );
  }
  const bound = DELAY_MS > 0 ? (mode: 'none' | 'server') => `, wall median ${median(walls[mode]).toFixed(0)} ms = ${(median(walls[mode]) / BOUND_MS).toFixed(3)}x the bound ${BOUND_MS} ms` : (mode: 'none' | 'server') => `, wall median ${median(walls[mode]).toFixed(0)} ms`;
  console.log(`CPU per document, median: none ${median(results.none).toFixed(3)} ms${bound('none')}`);
  console.log(`CPU per document, median: server ${median(results.server).toFixed(3)} ms${bound('server')}`);
  console.log(`server / none, pair by pair: CPU median ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}), wall median ${median(wallRatios).toFixed(3)} (${Math.min(...wallRatios).toFixed(3)}-${Math.max(...wallRatios).toFixed(3)})`);
  for (const mode of ['none', 'server'] as const) {
    if (shares[mode].size === 0) continue;
    const total = [...shares[mode].values()].reduce((a, b) => a + b, 0);
    console.log(`CPU per document by part (${mode}, profiled, ${(total / ROUNDS / DOCUMENTS).toFixed(3)} ms sampled on the main thread):`);
    for (const [part, ms] of [...shares[mode]].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
      console.log(`  ${((ms / ROUNDS / DOCUMENTS) * 1000).toFixed(0).padStart(5)} µs  ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${part}`);
    }
  }
  console.log(`load after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  session?.disconnect();
  await docevals.close();
  server.stop();
  await cleanup();
}

await main();
