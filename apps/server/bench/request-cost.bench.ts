// Benchmark (not a test): the standalone server's CPU per request for cheap answers, the part of issue 26's burst
// that is the server's own. `pnpm bench request-cost`.
//
// The standalone server (`src/server.ts`) in its own process on lowdb, nothing running. This process sends ROUNDS
// bursts of BURST requests at once, one connection each (node:http, no keep-alive), of three kinds: `GET
// /v1/evals/{unknown}/iterations/{unknown}/events` with the key's rate limit off (a 404 through authentication,
// the request log, the tracer and the handler's read), the same with the default rate limit (most refused with 429
// before the handler), and `GET /health` (no authentication). Printed per kind: the server's CPU per request (Linux
// /proc: main thread and the others), the answers' p50 and slowest, the statuses. CPU_PROF_DIR: a server profile.
import { request } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, stopServer } from './standalone-process.js';

const BURST = Number(process.env.BURST ?? 1_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

/** User + system CPU ms of a process's main thread and of its other threads (Linux /proc, 10 ms ticks). */
async function cpu(pid: number): Promise<{ main: number; others: number }> {
  const { readdir } = await import('node:fs/promises');
  let main = 0;
  let others = 0;
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    if (!stat) continue;
    const fields = stat.split(') ')[1]!.split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * 10;
    if (Number(tid) === pid) main += ms;
    else others += ms;
  }
  return { main, others };
}

async function burst(url: string, headers: Record<string, string>) {
  const target = new URL(url);
  const times: number[] = [];
  const statuses: Record<number, number> = {};
  await Promise.all(
    Array.from({ length: BURST }, () =>
      new Promise<void>((done) => {
        const start = performance.now();
        const req = request({ host: target.hostname, port: target.port, path: target.pathname, headers, agent: false }, (res) => {
          times.push(performance.now() - start);
          statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
          res.resume();
          res.on('end', done);
        });
        req.on('error', () => done());
        req.end();
      }),
    ),
  );
  return { times: times.sort((a, b) => a - b), statuses };
}

async function measure(label: string, env: Record<string, string>, path: string, headers: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'docevals-request-cost-'));
  const { url, child } = await startServer({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DOCEVALS_API_KEYS: 'key-a:org_a', LOG_LEVEL: 'info', DOCEVALS_SECRETS_KEY: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=', ...env });
  try {
    await burst(url + path, headers); // warm-up
    const perRequest: Array<{ main: number; others: number }> = [];
    let last = { times: [] as number[], statuses: {} as Record<number, number> };
    for (let round = 0; round < ROUNDS; round++) {
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // the rate limit's bucket refills
      const before = await cpu(child.pid!);
      last = await burst(url + path, headers);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const after = await cpu(child.pid!);
      perRequest.push({ main: (after.main - before.main) / BURST, others: (after.others - before.others) / BURST });
    }
    const mains = perRequest.map((p) => p.main).sort((a, b) => a - b);
    const others = perRequest.map((p) => p.others).sort((a, b) => a - b);
    const mid = Math.floor(ROUNDS / 2);
    console.log(
      `${label}: server CPU per request main ${mains[mid]!.toFixed(3)} ms (${mains[0]!.toFixed(3)}-${mains.at(-1)!.toFixed(3)}), other threads ${others[mid]!.toFixed(3)} ms; ` +
        `last burst p50 ${last.times[Math.floor(last.times.length / 2)]!.toFixed(0)} ms, slowest ${last.times.at(-1)!.toFixed(0)} ms, ${JSON.stringify(last.statuses)}; load ${load()}`,
    );
  } finally {
    await stopServer(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

const events = '/v1/evals/eval_none/iterations/iter_none/events';
const key = { 'api-key': 'key-a', accept: 'text/event-stream' };
console.log(`${BURST} requests at once, ${ROUNDS} rounds; load ${load()}`);
const kinds = (process.env.KINDS ?? 'unlimited,limited,health').split(',');
if (kinds.includes('unlimited')) await measure('events, 404, rate limit off', { DOCEVALS_RATE_LIMIT: '0' }, events, key);
if (kinds.includes('limited')) await measure('events, default rate limit', {}, events, key);
if (kinds.includes('health')) await measure('GET /health', { DOCEVALS_RATE_LIMIT: '0' }, '/health', {});
