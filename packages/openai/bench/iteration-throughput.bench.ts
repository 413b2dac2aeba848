// Iteration throughput: 200 documents through createExtractionRunner(...).extractAll against a loopback
// OpenAI-compatible server answering after 20 ms, 8 calls in flight. The ideal is 200 × 20 / 8 = 500 ms; the ratio
// to it measures what routing, the concurrency limit, the OpenAI SDK and HTTP on loopback add.
// The server runs in its own process (what a real provider looks like to the runner) and, once more, in the
// runner's process (sharing its event loop, as in the tests). Baselines under the same limit of 8 — bare SDK calls,
// bare fetch calls, a bare 20 ms timer — show what the SDK, HTTP and the machine allow without the runner; the
// extractor with Node's own fetch instead of its default undiciFetch() shows what that transport saves. Rounds
// are interleaved so that load from elsewhere on the machine hits every contender alike.
// Not a test: nothing fails on slow figures. Run from the repository root: pnpm bench iteration-throughput
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { createExtractionRunner, DEFAULT_INFERENCE_SETTINGS, type ExtractionDocument, type JsonObject } from '@docevals/core';
import { openaiExtractor } from '../src/index.js';
import { completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';

const DOCUMENTS = 200;
const DELAY_MS = 20;
// BENCH_JITTER_MS: the provider in another process answers after DELAY_MS ± a uniform draw up to it (mean unchanged).
const JITTER_MS = Number(process.env.BENCH_JITTER_MS ?? 0);
const CONCURRENCY = 8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
// Untimed rounds of each contender first (compilation, first connections).
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
const IDEAL_MS = (DOCUMENTS * DELAY_MS) / CONCURRENCY;

const schema: JsonObject = {
  type: 'object',
  properties: { invoice_number: { type: ['string', 'null'] }, total: { type: ['number', 'null'] } },
  required: ['invoice_number', 'total'],
  additionalProperties: false,
};
const documents: ExtractionDocument[] = Array.from({ length: DOCUMENTS }, (_, i) => ({
  id: `file_${i}`,
  filename: `invoice-${i}.txt`,
  mime_type: 'text/plain',
  bytes: new TextEncoder().encode(`Invoice Number: INV-${i}\nTotal: ${i}.50`),
}));
const settings = { ...DEFAULT_INFERENCE_SETTINGS, model: 'gpt-4o-mini', modality: 'text' as const };

interface ServerHandle {
  baseURL: string;
  reset(): Promise<void>;
  stats(): Promise<{ maxInFlight: number; requests: number }>;
  stop(): Promise<void>;
}

async function inProcessServer(): Promise<ServerHandle> {
  const server = await new FakeOpenAIServer().start();
  const handle = () => ({ body: completion({ invoice_number: 'INV-1', total: 12.5 }), delayMs: DELAY_MS });
  server.handle = handle;
  return {
    baseURL: server.baseURL,
    reset: async () => {
      server.reset();
      server.handle = handle;
    },
    stats: async () => ({ maxInFlight: server.maxInFlight, requests: server.requests.length }),
    stop: () => server.stop(),
  };
}

async function childProcessServer(): Promise<ServerHandle> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./fake-server-process.ts', import.meta.url)), [String(DELAY_MS), String(JITTER_MS)]);
  const next = (type: string) =>
    new Promise<any>((resolve) => {
      const on = (message: any) => {
        if (message?.type === type) {
          child.off('message', on);
          resolve(message);
        }
      };
      child.on('message', on);
    });
  const { baseURL } = await next('ready');
  return {
    baseURL,
    reset: async () => {
      const done = next('reset');
      child.send({ type: 'reset' });
      await done;
    },
    stats: async () => {
      const reply = next('stats');
      child.send({ type: 'stats' });
      return reply;
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

/** DOCUMENTS calls, CONCURRENCY workers taking the next one as soon as theirs ends. */
async function runPool(call: () => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < DOCUMENTS) {
      next++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

type Contender = { label: string; run: () => Promise<unknown>; check?: () => Promise<string> };

/**
 * Rounds of every contender, interleaved (A B C, A B C, ...) so that a burst of load on the machine hits them alike;
 * WARMUP untimed rounds first.
 */
async function race(contenders: Contender[], server?: ServerHandle): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>(contenders.map((c) => [c.label, []]));
  for (let round = 0; round < WARMUP; round++) for (const c of contenders) await c.run();
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of contenders) {
      await server?.reset();
      const started = performance.now();
      await c.run();
      const elapsed = performance.now() - started;
      times.get(c.label)!.push(elapsed);
      const extra = c.check ? `, ${await c.check()}` : '';
      console.log(`  round ${round + 1} ${c.label}: ${elapsed.toFixed(1)} ms, ratio ${(elapsed / IDEAL_MS).toFixed(3)}${extra}`);
    }
  }
  return times;
}

function extractAllContender(label: string, server: ServerHandle, fetch?: typeof globalThis.fetch): Contender {
  const runner = createExtractionRunner({
    extractors: [openaiExtractor({ apiKey: 'sk-bench', baseURL: server.baseURL, ...(fetch ? { fetch } : {}) })],
    concurrency: CONCURRENCY,
  });
  let failed = 0;
  return {
    label,
    run: async () => {
      const results = await runner.extractAll(documents, schema, settings);
      failed = results.filter((r) => r.metadata?.error).length;
    },
    check: async () => {
      const stats = await server.stats();
      return `max in flight ${stats.maxInFlight}, requests ${stats.requests}, failed ${failed}`;
    },
  };
}

function summary(label: string, times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `${label.padEnd(42)} best ${sorted[0]!.toFixed(1).padStart(7)} ms (ratio ${(sorted[0]! / IDEAL_MS).toFixed(3)}), median ${median
    .toFixed(1)
    .padStart(7)} ms (ratio ${(median / IDEAL_MS).toFixed(3)})`;
}

console.log(`${DOCUMENTS} documents, server delay ${DELAY_MS} ms${JITTER_MS ? ` ± ${JITTER_MS} ms (in another process)` : ''}, ${WARMUP} warm-up rounds, concurrency ${CONCURRENCY}: ideal ${IDEAL_MS} ms`);
const lines: string[] = [];
const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }] };
const body = JSON.stringify(request);

const child = await childProcessServer();
const client = new OpenAI({ apiKey: 'sk-bench', baseURL: child.baseURL, maxRetries: 0 });
const remote = await race(
  [
    extractAllContender('extractAll (server in another process)', child),
    extractAllContender("extractAll, Node's fetch (same server)", child, globalThis.fetch),
    { label: 'bare SDK calls (same server)', run: () => runPool(() => client.chat.completions.create(request)) },
    {
      label: 'bare fetch calls (same server)',
      run: () =>
        runPool(() =>
          fetch(`${child.baseURL}/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }).then((r) => r.json()),
        ),
    },
  ],
  child,
);
await child.stop();

const local = await inProcessServer();
const inProcess = await race([extractAllContender('extractAll (server in this process)', local)], local);
await local.stop();

const timer = await race([{ label: 'bare 20 ms timer per call', run: () => runPool(() => new Promise((r) => setTimeout(r, DELAY_MS))) }]);

for (const results of [remote, inProcess, timer]) for (const [label, times] of results) lines.push(summary(label, times));
console.log(`\n${lines.join('\n')}`);
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
);
