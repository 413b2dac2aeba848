import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';
import type { TestProject } from 'vitest/node';
import type { ProvidedContext } from 'vitest';

/** A port the OS just handed out on 127.0.0.1 (free now; the server binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The body of a global setup that gives the tests a server's URL as `inject(key)`: the URL in `fromEnv` when the
 * environment names one (a server whose data may be written), else a server started for this run and stopped in
 * teardown.
 */
export async function provideServer<K extends keyof ProvidedContext>(
  project: TestProject,
  key: K,
  fromEnv: ProvidedContext[K] | undefined,
  start: () => Promise<{ url: ProvidedContext[K]; stop(): Promise<void> }>,
): Promise<(() => Promise<void>) | undefined> {
  if (fromEnv) {
    project.provide(key, fromEnv);
    return undefined;
  }
  const server = await start();
  project.provide(key, server.url);
  return () => server.stop();
}

export interface ServerProcess {
  process: ChildProcess;
  /** Stops the server (`signal`, or SIGKILL with `{ kill: true }`, SIGKILL anyway after a grace period), then `cleanup`. */
  stop(how?: { kill?: boolean; keep?: boolean }): Promise<void>;
}

/**
 * Spawns a server process for the tests, keeps its output for the error message, kills it if the test run exits
 * without a teardown, and waits until `ready()` says it answers (polled every `pollMs`, at most `timeoutMs`; a server
 * that exits or never answers is stopped and its output thrown).
 */
export async function startServerProcess(options: {
  name: string;
  command: string;
  args: string[];
  spawn?: SpawnOptions;
  ready: () => boolean | Promise<boolean>;
  pollMs: number;
  timeoutMs: number;
  /** How `stop()` asks the server to shut down, and how long it waits before SIGKILL. */
  signal: NodeJS.Signals;
  graceMs: number;
  /** After the process is gone: remove its files unless `keep`. */
  cleanup?: (keep: boolean) => void;
}): Promise<ServerProcess> {
  const child = spawn(options.command, options.args, { stdio: ['ignore', 'pipe', 'pipe'], ...options.spawn });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // If the run dies without teardown (an uncaught error, process.exit), do not leave a server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async (how: { kill?: boolean; keep?: boolean } = {}) => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(how.kill ? 'SIGKILL' : options.signal);
      const killTimer = setTimeout(() => child.kill('SIGKILL'), options.graceMs);
      await exited;
      clearTimeout(killTimer);
    }
    options.cleanup?.(how.keep === true);
  };

  const deadline = Date.now() + options.timeoutMs;
  while (!(await options.ready())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${options.name} did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, options.pollMs));
  }
  return { process: child, stop };
}
