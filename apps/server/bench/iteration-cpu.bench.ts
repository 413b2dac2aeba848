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
// Three contenders, their order turning round by round (so that load from elsewhere hits all alike), compared round
// by round: `none`, no tracer provider registered (an embedding host that configures none: every span is the API's
// no-op); `server`, the standalone server's set-up when no exporter is configured (`createTelemetry`: the
// metrics-only tracer feeding the Prometheus metrics, no SDK; issue 32's target is server / none within noise); and
// `sdk`, the SDK's tracer provider recording every span for the metrics, nothing exported (the server's set-up before
// issue 32's change; a process with an exporter pays it plus the export).
//
// BENCH_STORE: memory (default) or lowdb. BENCH_ROUNDS: rounds per contender (default 6). BENCH_MODES: the contenders
// (default none,server,sdk; `none` alone for a whole-process A/B of two checkouts).
// With BENCH_PROFILE=1 the rounds run under the inspector's CPU profiler and the CPU is shared out per part
// (transport, OpenAI SDK, store, service, tracing, validation, metrics, GC...), each contender's rounds apart.
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { createDocevals, type Storage } from '@docevals/core';
import { memoryStorage } from '@docevals/core/storage-kit';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { openaiExtractor } from '@docevals/openai';
import { createTelemetry, type Telemetry } from '../src/observability/telemetry.js';

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

type Mode = 'none' | 'server' | 'sdk';
const MODES = (process.env.BENCH_MODES?.split(',') ?? ['none', 'server', 'sdk']) as Mode[];

/**
 * The contenders' set-ups, switchable: `server` is the standalone server's own (createTelemetry with no exporter:
 * the metrics-only tracer), `sdk` the SDK's tracer provider recording every span for the metrics without exporting
 * (the server's set-up before issue 32's change; what an exporter's process pays before the export itself).
 */
async function tracing() {
  const server = await createTelemetry({}, { serviceName: 'bench' });
  const noop: SpanProcessor = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
  const sdk = await createTelemetry({}, { serviceName: 'bench', spanProcessors: [noop] });
  let installed: Telemetry | undefined;
  return (mode: Mode) => {
    installed?.uninstall();
    installed = mode === 'server' ? server : mode === 'sdk' ? sdk : undefined;
    installed?.install();
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

interface Round {
  cpuMs: number;
  wall: number;
  profile?: Parameters<typeof parts>[0];
}

async function setUp() {
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
  const use = await tracing();
  const session = PROFILE ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
  }

  /** One background iteration under `mode`'s set-up: this process's CPU and the wall time, to its final event. */
  async function round(mode: Mode): Promise<Round> {
    use(mode);
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
    const profile = session ? ((await session.post('Profiler.stop')) as { profile: Round['profile'] }).profile : undefined;
    if (final !== 'completed') throw new Error(`the iteration ended ${final}`);
    // Each round's iteration goes (the evaluation keeps its documents): rounds stay alike.
    await docevals.evals.iterations.delete(ORG, { evaluation_id: evaluation.id, iteration_id: created.id });
    return { cpuMs: (used.user + used.system) / 1000, wall, ...(profile ? { profile } : {}) };
  }
  const close = async () => {
    session?.disconnect();
    await docevals.close();
    server.stop();
    await cleanup();
  };
  return { round, close };
}

const range = (values: number[]) => `median ${median(values).toFixed(3)} (${Math.min(...values).toFixed(3)}-${Math.max(...values).toFixed(3)})`;

function report(results: Record<Mode, Round[]>, shares: Record<Mode, Map<string, number>>) {
  for (const mode of MODES) {
    const wall = median(results[mode].map((r) => r.wall));
    const bound = DELAY_MS > 0 ? ` = ${(wall / BOUND_MS).toFixed(3)}x the bound ${BOUND_MS} ms` : '';
    console.log(`CPU per document, median: ${mode} ${median(results[mode].map((r) => r.cpuMs / DOCUMENTS)).toFixed(3)} ms, wall median ${wall.toFixed(0)} ms${bound}`);
  }
  for (const mode of MODES.includes('none') ? MODES.filter((m) => m !== 'none') : []) {
    const cpu = results[mode].map((r, i) => r.cpuMs / results.none[i]!.cpuMs);
    const wall = results[mode].map((r, i) => r.wall / results.none[i]!.wall);
    console.log(`${mode} / none, round by round: CPU ${range(cpu)}, wall ${range(wall)}`);
  }
  for (const mode of MODES) {
    if (shares[mode].size === 0) continue;
    const total = [...shares[mode].values()].reduce((a, b) => a + b, 0);
    console.log(`CPU per document by part (${mode}, profiled, ${(total / ROUNDS / DOCUMENTS).toFixed(3)} ms sampled on the main thread):`);
    for (const [part, ms] of [...shares[mode]].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
      console.log(`  ${((ms / ROUNDS / DOCUMENTS) * 1000).toFixed(0).padStart(5)} µs  ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${part}`);
    }
  }
}

async function main() {
  const { round, close } = await setUp();
  console.log(
    `${DOCUMENTS} documents, ${CONCURRENCY} in flight, ${DELAY_MS} ms model, ${STORE} store, ${ROUNDS} rounds a contender (${MODES.join(', ')}); ` +
      `${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}${PROFILE ? ', profiled' : ''}`,
  );
  for (const mode of MODES) await round(mode);
  const results: Record<Mode, Round[]> = { none: [], server: [], sdk: [] };
  const shares: Record<Mode, Map<string, number>> = { none: new Map(), server: new Map(), sdk: new Map() };
  for (let i = 0; i < ROUNDS; i++) {
    // The order turns each round: a drift in the machine's speed hits every contender alike.
    const order = MODES.map((_, k) => MODES[(i + k) % MODES.length]!);
    for (const mode of order) {
      const r = await round(mode);
      results[mode].push(r);
      if (r.profile) for (const [part, ms] of parts(r.profile)) shares[mode].set(part, (shares[mode].get(part) ?? 0) + ms);
    }
    console.log(`  round ${i + 1}: ` + MODES.map((m) => `${m} ${(results[m][i]!.cpuMs / DOCUMENTS).toFixed(3)} ms CPU/document (${results[m][i]!.wall.toFixed(0)} ms)`).join(', '));
  }
  report(results, shares);
  console.log(`load after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await close();
}

await main();
