/**
 * Throughput of the queue mode with 1, 2 and 4 worker processes (issue 17): per-worker concurrency 8, no fleet-wide
 * limit, one iteration of DOCS documents against a loopback OpenAI-compatible server answering after LATENCY_MS. The
 * API side (the service with the BullMQ runner) runs in this process, the fake model in one of its own (its CPU printed
 * apart, not in the sum); the workers are `apps/server/src/worker.ts`
 * processes (what `pnpm worker` runs). Prints the wall time from the enqueue to `completed`, the ideal
 * (documents x latency / (8 x workers)), and the speed-up against 1 worker (goal >= 3x at 4).
 *
 * Run: `pnpm bench bullmq` (Redis: REDIS_URL when set, else a throwaway redis-server on a free port).
 * Env: DOCS (240), LATENCY_MS (1000: a fast model; real ones take 2-20 s), WORKERS (1,2,4; 0 is the in-process
 * runner on the same Redis store, `vs the in-process runner` then compares each fleet with it), FLEET_LIMIT (none:
 * the fleet-wide limit per model, e.g. `DOCS=300 LATENCY_MS=20 WORKERS=0,3 FLEET_LIMIT=8 WARMUP=2` for issue 31's
 * queue-against-in-process case; LATENCY_MS=0 for the CPU per document summed over workers, API and Redis),
 * WARMUP (0: iterations run untimed first, e.g. 3 for a warm fleet as long-running workers are; 0: cold processes),
 * CPU_PROF_DIR (each worker writes a V8 CPU profile there when it exits: open it in Chrome's DevTools).
 */
import { fork, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { redisStorage } from '@docevals/adapters/redis';
import { createDocevals } from '@docevals/core';
import { openaiExtractor } from '@docevals/openai';
import { bullmqJobRunner } from '@docevals/bullmq';
import { startRedisServer, type RedisServerHandle } from '../../../test-support/redis-global-setup.js';
import { invoiceDocuments, SCHEMA } from '../../../test-support/invoice-model.js';

const DOCS = Number(process.env.DOCS ?? 240);
const LATENCY_MS = Number(process.env.LATENCY_MS ?? 1000);
const FLEET_LIMIT = process.env.FLEET_LIMIT ? Number(process.env.FLEET_LIMIT) : undefined;
const WORKERS = (process.env.WORKERS ?? '1,2,4').split(',').map(Number);
const PER_WORKER = 8;
/** Iterations run before the timed one (0: a cold fleet, each process's first documents in unoptimized code). */
const WARMUP = Number(process.env.WARMUP ?? 0);
const standalone = fileURLToPath(new URL('../../../apps/server/', import.meta.url));

let redis: RedisServerHandle | undefined;
const url = process.env.REDIS_URL ?? (redis = await startRedisServer()).url;
/**
 * The fake model in a process of its own (packages/openai/bench/fake-server-process.ts), so that "this process" is
 * the API side alone and the model's serving CPU is read apart.
 */
const model = await (async () => {
  const child = fork(fileURLToPath(new URL('../../openai/bench/fake-server-process.ts', import.meta.url)), [String(LATENCY_MS)]);
  const next = (type: string) =>
    new Promise<any>((resolve) => {
      const on = (message: any) => {
        if (message?.type !== type) return;
        child.off('message', on);
        resolve(message);
      };
      child.on('message', on);
    });
  const ask = async (type: string) => {
    const reply = next(type);
    child.send({ type });
    return reply;
  };
  const { baseURL } = await next('ready');
  return {
    baseURL: baseURL as string,
    pid: child.pid,
    reset: () => ask('reset'),
    /** The peak of calls in flight and when the first call started and the last answered (epoch ms) since the reset. */
    stats: (): Promise<{ maxInFlight: number; firstCall: number; lastCall: number }> => ask('stats'),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await exited;
    },
  };
})();
const dataDir = await mkdtemp(join(tmpdir(), 'docevals-bench-workers-'));
const probe = new Redis(url);
const epochNow = () => performance.timeOrigin + performance.now();

interface ProcStat {
  cpuMs: number;
  /** The kernel's share of cpuMs (system calls, page faults, the network stack on loopback). */
  systemMs: number;
  minorFaults: number;
  /** Read and write system calls (a socket write costs tens of µs on this VM: Redis commands, HTTP requests). */
  reads: number;
  writes: number;
}

/**
 * User + system CPU time of a process so far in ms, its minor page faults (a fresh page costs ~16 µs on this VM) and
 * its read / write system calls, from Linux /proc; 0 elsewhere.
 */
async function procStat(pid: number | undefined): Promise<ProcStat> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    const io = await readFile(`/proc/${pid}/io`, 'utf8');
    const count = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(io)?.[1] ?? 0);
    // minflt; utime, stime in clock ticks (100 Hz)
    return { cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100, systemMs: (Number(fields[12]) * 1000) / 100, minorFaults: Number(fields[7]), reads: count('syscr'), writes: count('syscw') };
  } catch {
    return { cpuMs: 0, systemMs: 0, minorFaults: 0, reads: 0, writes: 0 };
  }
}

/** The workers' figures so far, summed. */
async function workersStat(pids: Array<number | undefined>): Promise<ProcStat> {
  const stats = await Promise.all(pids.map(procStat));
  const sum = (pick: (s: ProcStat) => number) => stats.reduce((n, s) => n + pick(s), 0);
  return { cpuMs: sum((s) => s.cpuMs), systemMs: sum((s) => s.systemMs), minorFaults: sum((s) => s.minorFaults), reads: sum((s) => s.reads), writes: sum((s) => s.writes) };
}

/** Redis's own CPU so far (INFO cpu: user + sys), in ms. */
async function redisCpuMs(client: { info(section: string): Promise<string> }): Promise<number> {
  const info = await client.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

/** Redis's calls so far per command (INFO commandstats: a script's own commands counted too, and its EVALSHA). */
async function redisCalls(client: { info(section: string): Promise<string> }): Promise<Map<string, number>> {
  const info = await client.info('commandstats');
  return new Map([...info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
}

/** The commands Redis ran most per document between two readings, e.g. `evalsha 3.2, sadd 2.1`. */
function topCalls(before: Map<string, number>, after: Map<string, number>, documents: number): string {
  const per = [...after].map(([name, calls]) => [name, (calls - (before.get(name) ?? 0)) / documents] as const);
  const all = per.reduce((n, [, c]) => n + c, 0);
  const top = per.filter(([, c]) => c >= 0.2).sort((a, b) => b[1] - a[1]);
  return `${all.toFixed(1)} (${top.map(([name, c]) => `${name} ${c.toFixed(1)}`).join(', ')})`;
}

interface RunFigures {
  ms: number;
  span: { firstCall: number; afterLast: number };
  cpuPerDocument: number;
  /** The kernel's share of the workers' CPU per document. */
  systemPerDocument: number;
  faultsPerDocument: number;
  /** The workers' read and write system calls per document. */
  syscallsPerDocument: { reads: number; writes: number };
  apiCpuPerDocument: number;
  redisCpuPerDocument: number;
  /** The fake model's process, apart (not in the pipeline's sum). */
  modelCpuPerDocument: number;
  maxInFlight: number;
  /** Redis's commands per document, the most frequent named. */
  redisCalls: string;
}

/** `count` worker processes (`apps/server/src/worker.ts`), each resolved once it logs that it is ready. */
function spawnWorkers(count: number, env: NodeJS.ProcessEnv) {
  return Promise.all(
    Array.from({ length: count }, () => {
      const profile = process.env.CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`] : [];
      const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'src/worker.ts'], { cwd: standalone, env, stdio: ['ignore', 'pipe', 'inherit'] });
      return new Promise<typeof child>((resolve, reject) => {
        let out = '';
        const read = (c: Buffer) => {
          out += c.toString();
          if (!out.includes('docevals worker ready')) return;
          // Ready: its log lines (one per document) are drained unread, not kept, off the API side's CPU figure.
          child.stdout.off('data', read);
          child.stdout.resume();
          resolve(child);
        };
        child.stdout.on('data', read);
        child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${out}`)));
      });
    }),
  );
}

async function run(workers: number): Promise<RunFigures> {
  const keyPrefix = `bench-workers-${workers}-${Date.now().toString(36)}:`;
  const prefix = `${keyPrefix}bull`;
  const docevals = createDocevals({
    storage: redisStorage({ url, keyPrefix }),
    extractors: [openaiExtractor({ apiKey: 'sk-bench', baseURL: model.baseURL, models: ['*'] })],
    // 0 workers: the in-process runner on the same store, as many calls in flight as the fleet may make.
    ...(workers === 0
      ? { extraction: { concurrency: Math.min(PER_WORKER, FLEET_LIMIT ?? PER_WORKER) } }
      : { jobs: { runner: bullmqJobRunner({ connection: url, prefix, log: () => undefined, ...(FLEET_LIMIT ? { limits: { '*': { concurrency: FLEET_LIMIT } } } : {}) }) } }),
  });
  const env = {
    ...process.env,
    REDIS_URL: url,
    REDIS_KEY_PREFIX: keyPrefix,
    DATA_DIR: dataDir,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: model.baseURL,
    WORKER_CONCURRENCY: String(PER_WORKER),
  };
  const children = await spawnWorkers(workers, env);
  try {
    const evaluation = await docevals.evals.create('org_bench', {
      name: 'bench',
      json_schema: SCHEMA,
      documents: invoiceDocuments(DOCS),
      default_inference_settings: { model: 'gpt-4o-mini' },
    });
    const iterate = async () => {
      const iteration = await docevals.evals.iterations.create('org_bench', { evaluation_id: evaluation.id, background: true });
      for (;;) {
        const summary = await docevals.evals.iterations.get('org_bench', { evaluation_id: evaluation.id, iteration_id: iteration.id, view: 'summary' });
        if (summary.status === 'completed') {
          if (summary.progress.succeeded !== DOCS) throw new Error(`only ${summary.progress.succeeded} of ${DOCS} succeeded`);
          return;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    // A warm fleet (workers run for days): one iteration first, not timed, so the timed one runs optimized code.
    for (let i = 0; i < WARMUP; i++) await iterate();
    const pids = children.map((c) => c.pid);
    const before = await workersStat(pids);
    const redisBefore = await redisCpuMs(probe);
    const callsBefore = await redisCalls(probe);
    await model.reset();
    const modelBefore = await procStat(model.pid);
    const apiBefore = process.cpuUsage();
    const started = epochNow();
    await iterate();
    const ms = epochNow() - started;
    const api = process.cpuUsage(apiBefore);
    const modelCpu = (await procStat(model.pid)).cpuMs - modelBefore.cpuMs;
    const stats = await model.stats();
    const span = { firstCall: stats.firstCall - started, afterLast: started + ms - stats.lastCall };
    const after = await workersStat(pids);
    const redisCpu = (await redisCpuMs(probe)) - redisBefore;
    const calls = topCalls(callsBefore, await redisCalls(probe), DOCS);
    const perDocument = (pick: (s: ProcStat) => number) => (pick(after) - pick(before)) / DOCS;
    const syscallsPerDocument = { reads: perDocument((s) => s.reads), writes: perDocument((s) => s.writes) };
    const figures = { cpuPerDocument: perDocument((s) => s.cpuMs), systemPerDocument: perDocument((s) => s.systemMs), faultsPerDocument: perDocument((s) => s.minorFaults), syscallsPerDocument };
    const processes = { apiCpuPerDocument: (api.user + api.system) / 1000 / DOCS, redisCpuPerDocument: redisCpu / DOCS, modelCpuPerDocument: modelCpu / DOCS };
    return { ms, span, ...figures, ...processes, maxInFlight: stats.maxInFlight, redisCalls: calls };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    await docevals.close();
  }
}

try {
  console.log(`${DOCS} documents, ${LATENCY_MS} ms per call, ${PER_WORKER} per worker, fleet limit ${FLEET_LIMIT ?? 'none'}; load before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const times = new Map<number, number>();
  for (const workers of WORKERS) {
    const { ms, span, cpuPerDocument, systemPerDocument, faultsPerDocument, syscallsPerDocument: sys, apiCpuPerDocument, redisCpuPerDocument, modelCpuPerDocument, maxInFlight, redisCalls: calls } = await run(workers);
    times.set(workers, ms);
    const ideal = (DOCS * LATENCY_MS) / Math.min(PER_WORKER * Math.max(workers, 1), FLEET_LIMIT ?? Infinity);
    const queued = WORKERS.filter((w) => w > 0);
    const base = times.get(queued[0]!) ?? ms;
    const inProcess = times.get(0);
    console.log(
      `${workers === 0 ? 'in process (0 workers)' : `${workers} worker(s)`}: ${Math.round(ms)} ms` +
        (ideal > 0 ? ` (ideal ${Math.round(ideal)} ms, ${(ms / ideal).toFixed(2)}x it); ` : '; ') +
        (workers > 0 ? `speed-up vs ${queued[0]}: ${(base / ms).toFixed(2)}x; ` : '') +
        (workers > 0 && inProcess ? `vs the in-process runner: ${(ms / inProcess).toFixed(2)}x; ` : '') +
        `peak in flight ${maxInFlight}; first call ${Math.round(span.firstCall)} ms after the create, completed ${Math.round(span.afterLast)} ms after the last answer; ` +
        `CPU per document: workers ${cpuPerDocument.toFixed(2)} ms${workers > 0 ? ` (kernel ${systemPerDocument.toFixed(2)})` : ''}, ${workers > 0 ? 'API' : 'API + runner'} ${apiCpuPerDocument.toFixed(2)} ms, ` +
        `Redis ${redisCpuPerDocument.toFixed(2)} ms, sum ${(cpuPerDocument + apiCpuPerDocument + redisCpuPerDocument).toFixed(2)} ms (the fake model apart: ${modelCpuPerDocument.toFixed(2)} ms); ` +
        (workers > 0 ? `workers' minor page faults per document ${faultsPerDocument.toFixed(1)}, system calls ${sys.reads.toFixed(1)} reads + ${sys.writes.toFixed(1)} writes; ` : '') +
        `Redis commands per document ${calls}; load ${loadavg()[0]!.toFixed(2)}`,
    );
  }
} finally {
  await model.stop();
  await rm(dataDir, { recursive: true, force: true });
  probe.disconnect();
  await redis?.stop();
}
