// CPU per call of the OpenAI SDK on loopback with Node's own `fetch` and with `undiciFetch()` (the extractor's
// default): N calls, 8 in flight, a server in its own process answering at once (a 0 ms model), so the figure is what
// the client side of one call costs this process. Rounds alternate A B A B ... so load from elsewhere hits both
// alike; medians and their ratio are printed with the load average.
// Not a test: nothing fails on slow figures. Run from the repository root: pnpm bench fetch-cpu
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { undiciFetch, type FetchFunction } from '../src/index.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CONCURRENCY = 8;

const child = fork(fileURLToPath(new URL('./fake-server-process.ts', import.meta.url)), ['0']);
const baseURL = await new Promise<string>((resolve) => child.on('message', (m: any) => m?.type === 'ready' && resolve(m.baseURL)));
const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }] };

async function round(fetch: FetchFunction): Promise<{ cpuMs: number; wallMs: number }> {
  const client = new OpenAI({ apiKey: 'sk-bench', baseURL, maxRetries: 0, fetch });
  let next = 0;
  const worker = async () => {
    while (next < CALLS) {
      next++;
      await client.chat.completions.create(request);
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started };
}

const contenders: Array<[string, FetchFunction]> = [
  ['Node fetch', globalThis.fetch],
  ['undiciFetch()', undiciFetch()],
];
const perCall = new Map<string, number[]>(contenders.map(([label]) => [label, []]));
for (const [, fetch] of contenders) await round(fetch); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const [label, fetch] of contenders) {
    const { cpuMs, wallMs } = await round(fetch);
    perCall.get(label)!.push(cpuMs / CALLS);
    console.log(`  round ${r + 1} ${label.padEnd(14)} ${((cpuMs / CALLS) * 1000).toFixed(0)} µs CPU/call, ${((wallMs / CALLS) * 1000).toFixed(0)} µs wall/call, load ${loadavg()[0]!.toFixed(2)}`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const [a, b] = contenders.map(([label]) => median(perCall.get(label)!));
console.log(`\nmedian CPU per call: Node fetch ${(a! * 1000).toFixed(0)} µs, undiciFetch() ${(b! * 1000).toFixed(0)} µs, ratio ${(b! / a!).toFixed(2)}`);
console.log(`node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
child.send({ type: 'stop' });
