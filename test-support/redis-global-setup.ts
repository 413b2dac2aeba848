import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort, provideServer, startServerProcess } from './server-process.js';

export { freePort };

declare module 'vitest' {
  export interface ProvidedContext {
    /** `redis://127.0.0.1:<port>`: `REDIS_URL` when set, else a throwaway redis-server started for this run. */
    redisUrl: string;
  }
}

/**
 * Vitest global setup (root config, every project): gives the tests a Redis as `inject('redisUrl')`. Uses
 * `REDIS_URL` when set; otherwise starts `redis-server` on a free loopback port, with no persistence and a temporary
 * dir, and stops it in teardown. Without redis-server it fails the run: Redis tests must not skip silently.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  return provideServer(project, 'redisUrl', process.env.REDIS_URL, startRedisServer);
}

export interface RedisServerHandle {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a redis-server on a free loopback port and waits until it answers PING. Also used by tests that need a
 * Redis of their own to stop and restart (`extraArgs` e.g. `['--appendonly', 'yes']`, `port` to restart on the same
 * one, `dir` to keep its data across a restart).
 */
export async function startRedisServer(
  options: { port?: number; dir?: string; extraArgs?: string[] } = {},
): Promise<RedisServerHandle> {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0) {
    throw new Error(
      'redis-server is not installed (needed by the Redis adapter tests). Install it (apt-get install redis-server, ' +
        'brew install redis) or set REDIS_URL to a Redis whose data may be written (keys are prefixed per test).',
    );
  }
  const port = options.port ?? (await freePort());
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'docevals-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const server = await startServerProcess({
    name: `redis-server on port ${port}`,
    command: 'redis-server',
    args: [...args, ...(options.extraArgs ?? [])],
    ready: () => answersPing(port),
    pollMs: 50,
    timeoutMs: 10_000,
    signal: 'SIGTERM',
    graceMs: 5_000,
    cleanup: () => {
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  });
  return { url: `redis://127.0.0.1:${port}`, port, process: server.process, stop: () => server.stop() };
}

/** Sends an inline PING and waits for +PONG, without a Redis client (this file runs before any test module). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
