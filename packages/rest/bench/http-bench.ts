// Shared by the HTTP benchmarks (scale.bench.ts, annotation-import.bench.ts): a store of each kind started for the
// run, the REST handler on a loopback node:http server, small JSON documents and imported iterations.
import { Buffer } from 'node:buffer';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStorage } from '@docevals/adapters/memory';
import { apiKeyAuthenticator, createDocevals, type Storage } from '@docevals/core';
import { createRestHandler } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';
import { startRedisServer } from '../../../test-support/redis-global-setup.js';
import { startPostgresServer } from '../../../test-support/postgres-global-setup.js';

export const KEY = 'bench-key';
export const ORG = 'org_bench';
export const schema = { type: 'object', properties: { vendor: { type: 'string' }, total: { type: 'number' }, lines: { type: 'array', items: { type: 'string' } } } };

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const ms = (x: number) => `${x < 10 ? x.toFixed(1) : Math.round(x)}`;

/** `n` distinct small documents (JSON files), named by `tag` so that evaluations do not share files. */
export function documents(n: number, tag: string) {
  return Array.from({ length: n }, (_, i) => {
    const content = { vendor: `Vendor ${tag} ${i}`, total: i, lines: [`line ${i}`, `line ${i + 1}`] };
    return {
      mime_data: { filename: `${tag}-${i}.json`, url: `data:application/json;base64,${Buffer.from(JSON.stringify(content)).toString('base64')}` },
      annotation: content,
    };
  });
}

/** Imported iterations: predictions slightly off the annotations, so metrics are not trivial. */
export function importedIterations(n: number, count: number) {
  return Array.from({ length: count }, (_, k) => ({
    inference_settings: { model: `model-${k}` },
    predictions: Array.from({ length: n }, (_, i) => ({ prediction: { vendor: `Vendor ${i + k}`, total: i, lines: [`line ${i + 1}`, `line ${i}`] } })),
  }));
}

export interface Opened {
  storage: Storage;
  cleanup(): Promise<void>;
  /** CPU time (ms) the store's own server process and its children have used so far, when the store has one. */
  serverCpuMs?: () => number;
}

/** CPU time (ms) of process `pid` and of its children, live (from /proc) or exited and reaped (cutime, cstime). */
export function processTreeCpuMs(pid: number): number {
  const ticks = (id: number): number => {
    try {
      // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 12th to 15th.
      const fields = readFileSync(`/proc/${id}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      return 0; // exited meanwhile: its time is in its parent's cutime once reaped
    }
  };
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  return ((ticks(pid) + children.reduce((sum, child) => sum + ticks(child), 0)) * 1000) / 100; // USER_HZ = 100
}

/** memory, lowdb (a fresh temporary folder), redis or postgres (a server started for the run). */
export async function openStore(name: string): Promise<Opened> {
  if (name === 'memory') return { storage: memoryStorage(), cleanup: async () => undefined };
  if (name === 'lowdb') {
    const dir = mkdtempSync(join(tmpdir(), 'docevals-scale-'));
    const { lowdbStorage } = await import('@docevals/adapters/lowdb');
    const storage = lowdbStorage({ dir });
    // BENCH_KEEP_LOWDB=1: the folder stays (its path is printed) for the caller to remove after a series. Removing
    // 60,000 files makes the next minutes' file creations slow on an ext4 without a journal, as this VM's is (its
    // inode allocator skips inodes deleted in the last 60-300 s): the next build would pay for this one's removal
    // (docs/benchmarks.md, "Issue 31, session 13").
    const keep = process.env.BENCH_KEEP_LOWDB === '1';
    const cleanup = async () => (keep ? console.log(`lowdb folder kept: ${dir}`) : rmSync(dir, { recursive: true, force: true }));
    return { storage, cleanup };
  }
  if (name === 'redis') {
    const server = await startRedisServer();
    const { redisStorage } = await import('@docevals/adapters/redis');
    const storage = redisStorage({ url: server.url });
    return { storage, cleanup: () => server.stop(), serverCpuMs: () => processTreeCpuMs(server.process.pid!) };
  }
  if (name === 'postgres') {
    const server = await startPostgresServer();
    const { postgresStorage } = await import('@docevals/adapters/postgres');
    const storage = postgresStorage({ connectionString: server.url });
    return { storage, cleanup: () => server.stop(), serverCpuMs: () => processTreeCpuMs(server.process.pid!) };
  }
  throw new Error(`unknown store ${name}`);
}

export interface Served {
  url: string;
  /**
   * A JSON body is sent as application/json; a string body as `contentType`. `ms` is the server's part: from the
   * request's first byte sent to the response's last byte received; the client's own work (stringifying the body
   * before, parsing the answer after) is outside it, as it would be in a client process of its own.
   */
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; json: any; bytes: number; ms: number }>;
  close(): Promise<void>;
}

export async function serve(storage: Storage, maxDocuments: number): Promise<Served> {
  const docevals = createDocevals({ storage, limits: { maxDocumentsPerEvaluation: Math.max(10_000, maxDocuments) } });
  const rest = createRestHandler({
    docevals,
    authenticate: apiKeyAuthenticator({ keys: { [KEY]: ORG } }),
    limits: { maxBodyBytes: 512 * 1024 * 1024 },
    onError: (e) => console.error(e),
  });
  const server: Server = createServer(toNodeHandler(rest));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async call(method, path, body, contentType) {
      const raw = typeof body === 'string';
      const sent = body ? (raw ? body : JSON.stringify(body)) : undefined;
      const started = performance.now();
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { 'api-key': KEY, ...(body ? { 'content-type': raw ? (contentType ?? 'text/plain') : 'application/json' } : {}) },
        ...(sent !== undefined ? { body: sent } : {}),
      });
      const text = await response.text();
      const ms = performance.now() - started;
      return { status: response.status, json: text ? JSON.parse(text) : null, bytes: text.length, ms };
    },
    // Closing docevals stops its job scanner (else it polls the store closed after the run); it closes the store too.
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await docevals.close();
    },
  };
}

export async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

export function expectOk(r: { status: number; json: any }, what: string) {
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
}

/** POST /v1/evals with `n` documents and `iterations` imported iterations. */
export async function buildEvaluation(api: Served, n: number, iterations: number, tag: string) {
  const r = await api.call('POST', '/v1/evals', { name: tag, json_schema: schema, documents: documents(n, tag), iterations: importedIterations(n, iterations) });
  expectOk(r, `build ${tag}`);
  return r;
}

/**
 * Runs `bench` for each store named in `stores` and adds its table rows; a store whose adapter cannot open (no
 * server, no binary) is reported on the console and gets the row `skipped(name, reason)` instead.
 */
export async function rowsPerStore(
  stores: readonly string[],
  bench: (name: string) => Promise<string[]>,
  skipped: (name: string, reason: string) => string,
): Promise<string[]> {
  const rows: string[] = [];
  for (const name of stores) {
    try {
      rows.push(...(await bench(name)));
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      console.log(`[${name}] skipped: ${reason}`);
      rows.push(skipped(name, reason));
    }
  }
  return rows;
}
