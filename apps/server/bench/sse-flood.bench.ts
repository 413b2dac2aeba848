// Benchmark (not a test): issue 26's burst of 1,000 event subscribers, timed from the attacker's side and the
// server's, beside a bare Node server answering the same burst. `pnpm bench sse-flood`.
//
// The standalone server (`src/server.ts`) in its own process on lowdb (a Redis store with BENCH_REDIS_URL), the
// OpenAI-compatible fake provider in another answering after 50 ms, DOCEVALS_CONCURRENCY 2; organization A runs a
// 1,000-document background iteration; then this process sends 1,000 `GET .../events` at once, one connection each
// (node:http, no keep-alive: the lightest client Node has). Printed: the statuses (20 open, the rest 429 by the stream
// cap or the key's rate limit), A's answer times (p50, p90, max), this client's CPU, and from the server's request log
// the handler's own time (p50, max) and how long the requests took to reach it (the spread of their log times). Then
// the same client against a bare `node:http` server answering 429 at once: the floor of the machine and the client.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeProvider, listening, startServer, stopServer } from './standalone-process.js';

const SUBSCRIBERS = 1_000;
const KEY = 'key-a';
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const pick = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;

/**
 * CPU ms of a process (Linux /proc/PID/task; clock ticks of 10 ms): its main thread and the others (libuv's pool
 * doing file writes and fsyncs, V8's helpers), each as user + system (the kernel's part of an fsync is system).
 */
async function threadCpu(pid: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    if (!stat) continue;
    const fields = stat.split(') ')[1]!.split(' ');
    const thread = Number(tid) === pid ? 'main' : 'other threads';
    out.set(`${thread} user`, (out.get(`${thread} user`) ?? 0) + Number(fields[11]) * 10);
    out.set(`${thread} system`, (out.get(`${thread} system`) ?? 0) + Number(fields[12]) * 10);
  }
  return out;
}
const cpuSince = (before: Map<string, number>, after: Map<string, number>) =>
  [...after].map(([name, ms]) => `${name} ${ms - (before.get(name) ?? 0)}`).join(', ');

/** SUBSCRIBERS requests at once, one connection each: each answer's ms, the statuses, this process's CPU ms. */
async function burst(url: string) {
  const times: number[] = [];
  const statuses: Record<number, number> = {};
  let streamed = 0;
  const cpu = process.cpuUsage();
  const target = new URL(url);
  await Promise.all(
    Array.from({ length: SUBSCRIBERS }, () =>
      new Promise<void>((done) => {
        const start = performance.now();
        const req = request({ host: target.hostname, port: target.port, path: target.pathname, headers: { 'api-key': KEY, accept: 'text/event-stream' }, agent: false }, (res) => {
          times.push(performance.now() - start);
          statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
          if (res.statusCode === 200) {
            res.on('data', (chunk: Buffer) => (streamed += chunk.length));
            setTimeout(() => res.destroy(), 3_000);
          }
          else res.resume();
          done();
        });
        req.on('error', () => done());
        req.end();
      }),
    ),
  );
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  return { times, statuses, clientCpuMs: (used.user + used.system) / 1_000, streamed: () => streamed };
}

const describe = (b: Awaited<ReturnType<typeof burst>>) =>
  `statuses ${JSON.stringify(b.statuses)}; answers p50 ${pick(b.times, 0.5).toFixed(0)} ms, p90 ${pick(b.times, 0.9).toFixed(0)} ms, max ${b.times.at(-1)!.toFixed(0)} ms; client CPU ${b.clientCpuMs.toFixed(0)} ms`;

async function docevalsServer(): Promise<void> {
  const provider = await fakeProvider(50);
  const dataDir = await mkdtemp(join(tmpdir(), 'docevals-sse-flood-'));
  const { url, child: server, output } = await startServer({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DOCEVALS_API_KEYS: 'key-a:org_a,key-b:org_b',
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: provider.baseURL,
    DOCEVALS_CONCURRENCY: '2',
    DOCEVALS_SECRETS_KEY: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=',
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `flood${Date.now()}:` } : {}),
  });
  try {
    const call = async (method: string, path: string, body?: unknown) =>
      (await (await fetch(url + path, { method, headers: { 'api-key': KEY, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) })).json()) as { id: string };
    const documents = Array.from({ length: 1_000 }, (_, i) => ({
      mime_data: { filename: `inv-${i}.txt`, url: `data:text/plain;base64,${Buffer.from(`Invoice number: INV-${i}\nTotal: ${i}\n`).toString('base64')}` },
      annotation: { invoice_number: `INV-${i}`, total: i },
    }));
    const schema = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };
    const evaluation = await call('POST', '/v1/evals', { name: 'flood', json_schema: schema, documents, default_inference_settings: { model: 'gpt-4o-mini' } });
    const iteration = await call('POST', `/v1/evals/${evaluation.id}/iterations/create`, { background: true });
    // The server's CPU with A's iteration running and no burst: what the burst's figure is above.
    const quietFrom = await threadCpu(server.pid!);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const quiet = cpuSince(quietFrom, await threadCpu(server.pid!));
    const serverBefore = await threadCpu(server.pid!);
    const providerBefore = await threadCpu(provider.child.pid!);
    const result = await burst(`${url}/v1/evals/${evaluation.id}/iterations/${iteration.id}/events`);
    const serverDuring = cpuSince(serverBefore, await threadCpu(server.pid!));
    const providerDuring = cpuSince(providerBefore, await threadCpu(provider.child.pid!));
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const lines = output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('/events'))
      .map((line) => JSON.parse(line) as { time: string; duration_ms: number });
    const handler = lines.map((l) => l.duration_ms).sort((a, b) => a - b);
    const at = lines.map((l) => Date.parse(l.time)).sort((a, b) => a - b);
    console.log(`docevals (${process.env.BENCH_REDIS_URL ? 'Redis' : 'lowdb'}): ${describe(result)}; load ${load()}`);
    console.log(
      `  server: ${lines.length} logged, handler p50 ${pick(handler, 0.5)} ms, max ${handler.at(-1)} ms; ` +
        `the requests reached it over ${at.at(-1)! - at[0]!} ms (median at ${pick(at, 0.5) - at[0]!} ms)`,
    );
    console.log(`  CPU ms during the burst: server ${serverDuring} (2 s before it, the iteration alone: ${quiet}); provider ${providerDuring}; streamed to the open subscribers ${(result.streamed() / 1024).toFixed(0)} KiB`);
  } finally {
    await stopServer(server);
    provider.child.kill();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function bareServer(): Promise<void> {
  const script = "const s=require('node:http').createServer((q,r)=>{r.writeHead(429,{'retry-after':'5'});r.end('{}')});s.listen({port:0,host:'127.0.0.1',backlog:4096},()=>console.log('listening on http://127.0.0.1:'+s.address().port))";
  const server = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const { url } = await listening(server);
    console.log(`bare node:http answering 429: ${describe(await burst(`${url}/events`))}; load ${load()}`);
  } finally {
    server.kill('SIGTERM');
  }
}

console.log(`${SUBSCRIBERS} subscribers at once; load ${load()}`);
await docevalsServer();
await bareServer();
