// Benchmark (not a test): an iteration over HTTP against its bound, on lowdb, Redis and PostgreSQL (issue 31:
// <= 1.15x). `pnpm bench http-iteration`.
//
// The standalone server (`src/server.ts`) in its own process, warm (BENCH_WARMUP untimed iterations first, default 10:
// after 2, V8's compiler threads were still optimizing the server's code through the timed rounds, 0.5 ms of CPU per
// document), the OpenAI-compatible fake provider in another answering after BENCH_DELAY_MS (default 20; BENCH_JITTER_MS:
// ± a uniform draw up to it, the mean unchanged), BENCH_DOCUMENTS documents
// (default 200), DOCEVALS_CONCURRENCY 8: the bound is documents x delay / 8 (500 ms). A round is one background
// iteration (`POST .../iterations/create` with `background: true`) read over its event stream to the final event, as a
// client does; progress and events are durable per document as always. Per store: each round's wall time, its ratio to
// the bound (median and best of BENCH_ROUNDS, default 7), the server process's CPU per document (Linux /proc), and
// where the time went: from the POST to the provider's first call, and from its last answer to the final event.
// BENCH_STORES: which (default lowdb,redis,postgres). CPU_PROF_DIR: a V8 CPU profile of the server per store. Redis and PostgreSQL are throwaway servers on free ports.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgresServer } from '../../../test-support/postgres-global-setup.js';
import { startRedisServer } from '../../../test-support/redis-global-setup.js';
import { lineItems } from '../../../test-support/fake-openai-server.js';
import { fakeProvider, startServer, stopServer } from './standalone-process.js';

type Provider = Awaited<ReturnType<typeof fakeProvider>>;

const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 200);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 20);
// BENCH_JITTER_MS: each answer after DELAY_MS ± a uniform draw up to it (the mean, and so the bound, unchanged).
const JITTER_MS = Number(process.env.BENCH_JITTER_MS ?? 0);
// BENCH_ITEMS: line items per invoice (in the provider's answer and, a few different, in the ground truth), so that
// each document's metrics cost what an invoice's do (items aligned, then compared); 0 (default): two fields.
const ITEMS = Number(process.env.BENCH_ITEMS ?? 0);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const STORES = (process.env.BENCH_STORES ?? 'lowdb,redis,postgres').split(',');
const CONCURRENCY = 8;
const BOUND_MS = (DOCUMENTS * DELAY_MS) / CONCURRENCY;
const KEY = 'bench-http-iteration-key';
const ITEM = {
  type: 'object',
  properties: { description: { type: 'string' }, quantity: { type: 'number' }, unit_price: { type: 'number' }, amount: { type: 'number' } },
};
const SCHEMA = {
  type: 'object',
  properties: { invoice_number: { type: 'string' }, total: { type: 'number' }, ...(ITEMS > 0 ? { items: { type: 'array', items: ITEM } } : {}) },
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

/** User + system CPU of a process so far (Linux /proc, clock ticks of 10 ms), in ms. */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms per thread of a process (Linux /proc/PID/task), keyed by "tid name". */
async function threadCpuMs(pid: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    if (!stat) continue;
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.split(') ')[1]!.split(' ');
    out.set(`${tid} ${name}`, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return out;
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'api-key': KEY, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * When a round's steps came, in ms from its POST: the POST's answer, the provider's first call, the first and last
 * document events, the provider's last answer, the final event.
 */
interface Phases { answered: number; firstCall: number; first: number; last: number; lastAnswer: number; final: number }

/** One background iteration, from its POST to its final event on the event stream: wall ms, and its phases. */
async function iterate(url: string, evaluationId: string, provider: Provider): Promise<{ wall: number; phases: Phases }> {
  await provider.calls();
  const started = performance.now();
  const { id } = (await call(url, 'POST', `/v1/evals/${evaluationId}/iterations/create`, { background: true })) as { id: string };
  const answered = performance.now() - started;
  const response = await fetch(`${url}/v1/evals/${evaluationId}/iterations/${id}/events`, { headers: { 'api-key': KEY, accept: 'text/event-stream' } });
  let text = '';
  let first = 0;
  let last = 0;
  const decoder = new TextDecoder();
  // Read as it comes (the stream closes after the final event), noting when document events arrive.
  const reader = response.body!.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const part = decoder.decode(read.value, { stream: true });
    if (part.includes('event: document')) {
      last = performance.now() - started;
      first ||= last;
    }
    text += part;
  }
  const wall = performance.now() - started;
  const final = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]).pop();
  if (final !== 'completed') throw new Error(`the iteration ended ${final}`);
  const calls = await provider.calls();
  if (calls.requests !== DOCUMENTS) throw new Error(`the provider had ${calls.requests} calls, not ${DOCUMENTS}`);
  const since = (epochMs: number) => epochMs - performance.timeOrigin - started;
  return { wall, phases: { answered, firstCall: since(calls.firstCall), first, last, lastAnswer: since(calls.lastCall), final: wall } };
}

async function storeEnv(store: string): Promise<{ env: Record<string, string>; stop: () => Promise<void> }> {
  if (store === 'lowdb') return { env: {}, stop: async () => {} };
  if (store === 'redis') {
    const redis = await startRedisServer();
    return { env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'bench:' }, stop: () => redis.stop() };
  }
  if (store === 'postgres') {
    const postgres = await startPostgresServer();
    return { env: { DATABASE_URL: postgres.url }, stop: () => postgres.stop() };
  }
  throw new Error(`unknown store ${store}`);
}

async function measure(store: string, provider: Provider): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), `docevals-http-iteration-${store}-`));
  const backing = await storeEnv(store);
  const server = await startServer({
    ...backing.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DOCEVALS_API_KEYS: `${KEY}:org_bench`,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: provider.baseURL,
    DOCEVALS_CONCURRENCY: String(CONCURRENCY),
    DOCEVALS_SECRETS_KEY: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=',
    DOCEVALS_RATE_LIMIT: '0',
  });
  try {
    const documents = Array.from({ length: DOCUMENTS }, (_, i) => ({
      mime_data: { filename: `inv-${i}.txt`, url: `data:text/plain;base64,${Buffer.from(`Invoice number: INV-${i}\nTotal: ${i + 1}\n`).toString('base64')}` },
      annotation: { invoice_number: `INV-${i}`, total: i + 1, ...(ITEMS > 0 ? { items: lineItems(ITEMS, 1) } : {}) },
    }));
    const evaluation = await call(server.url, 'POST', '/v1/evals', { name: 'bench', json_schema: SCHEMA, documents, default_inference_settings: { model: 'gpt-4o-mini' } });
    for (let i = 0; i < WARMUP; i++) await iterate(server.url, evaluation.id as string, provider);
    const walls: number[] = [];
    const cpus: number[] = [];
    const phases: Phases[] = [];
    const threadsBefore = await threadCpuMs(server.child.pid!);
    for (let i = 0; i < ROUNDS; i++) {
      const cpu = await cpuMs(server.child.pid!);
      const round = await iterate(server.url, evaluation.id as string, provider);
      walls.push(round.wall);
      phases.push(round.phases);
      cpus.push(((await cpuMs(server.child.pid!)) - cpu) / DOCUMENTS);
    }
    // Which threads the server's CPU went to over the timed rounds (the main thread, V8's and libuv's helpers).
    const threads = [...(await threadCpuMs(server.child.pid!))]
      .map(([thread, ms]) => [thread.replace(/^\d+ /, ''), (ms - (threadsBefore.get(thread) ?? 0)) / (ROUNDS * DOCUMENTS)] as const)
      .filter(([, ms]) => ms > 0.005);
    console.log(`${store}: server CPU per document by thread: ${threads.map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ')} ms`);
    const phase = (key: keyof Phases) => median(phases.map((p) => p[key])).toFixed(0);
    console.log(
      `${store}: median ms from the POST: answered ${phase('answered')}, the provider's first call ${phase('firstCall')}, ` +
        `first document event ${phase('first')}, last ${phase('last')}, the provider's last answer ${phase('lastAnswer')}, ` +
        `final event ${phase('final')}`,
    );
    console.log(
      `${store}: wall median ${median(walls).toFixed(0)} ms = ${(median(walls) / BOUND_MS).toFixed(3)}x the bound ${BOUND_MS} ms ` +
        `(best ${(Math.min(...walls) / BOUND_MS).toFixed(3)}x; rounds ${walls.map((w) => w.toFixed(0)).join(' ')}); ` +
        `server CPU per document median ${median(cpus).toFixed(2)} ms; load ${load()}`,
    );
  } finally {
    await stopServer(server.child);
    await backing.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const provider = await fakeProvider(DELAY_MS, JITTER_MS, ITEMS);
console.log(`${DOCUMENTS} documents${ITEMS ? ` of ${ITEMS} line items` : ''} x ${DELAY_MS} ms${JITTER_MS ? ` ± ${JITTER_MS} ms` : ''}, ${CONCURRENCY} in flight, ${WARMUP} warm-up and ${ROUNDS} timed iterations per store; load ${load()}`);
try {
  for (const store of STORES) await measure(store, provider);
} finally {
  provider.child.kill();
}
