// What the server benchmarks share: the OpenAI-compatible fake provider in its own process, the standalone server
// (`src/server.ts`) in its own, and waiting for a process to print "listening on".
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('..', import.meta.url));

/** The fake provider answering after `delayMs` (± a uniform `jitterMs`), `items` line items in each answer, in a child process. */
export async function fakeProvider(
  delayMs: number,
  jitterMs = 0,
  items = 0,
): Promise<{ baseURL: string; child: ChildProcess; calls: () => Promise<ProviderCalls> }> {
  const args = [String(delayMs), String(jitterMs), String(items)];
  const child = fork(fileURLToPath(new URL('../../../packages/openai/bench/fake-server-process.ts', import.meta.url)), args);
  const baseURL = await new Promise<string>((resolve) => child.on('message', (m: { type?: string; baseURL?: string }) => m.type === 'ready' && resolve(m.baseURL!)));
  const reply = <T>(type: string) =>
    new Promise<T>((resolve) => {
      const on = (m: { type?: string }) => m.type === type && (child.off('message', on), resolve(m as T));
      child.on('message', on);
      child.send({ type });
    });
  // The provider's calls since the last time they were asked for (its counters are reset after each answer).
  const calls = async () => {
    const stats = await reply<ProviderCalls>('stats');
    await reply('reset');
    return stats;
  };
  return { baseURL, child, calls };
}

/** The fake provider's calls: how many, and when the first started and the last answered (ms since the epoch). */
export interface ProviderCalls { requests: number; firstCall: number; lastCall: number }

/** Resolves with the URL `child` prints ("listening on http://127.0.0.1:PORT"); `output()` is all it printed so far. */
export async function listening(child: ChildProcess): Promise<{ url: string; output: () => string }> {
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => reject(new Error(`exited (${code}): ${output.slice(-2_000)}`)));
  });
  return { url, output: () => output };
}

/**
 * `src/server.ts` with `env` over this process's, once listening. CPU_PROF_DIR: the server writes a V8 CPU profile
 * there when it exits (open it in Chrome's DevTools). BENCH_SERVER_FLAGS: more flags for its `node` (V8's too, such as
 * `--trace-deopt` or `--no-concurrent-recompilation`, which NODE_OPTIONS refuses); BENCH_SERVER_LOG: a file its
 * standard output is copied to.
 */
export async function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  // The root tsconfig (its `paths` map @docevals/* to the sources), named absolutely: this process's may be relative.
  const tsconfig = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));
  const profile = process.env.CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, ...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'src/server.ts'], {
    cwd: here,
    env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (process.env.BENCH_SERVER_LOG) child.stdout!.pipe(createWriteStream(process.env.BENCH_SERVER_LOG));
  return { ...(await listening(child)), child };
}

/** Stops a server started by {@link startServer} and waits for its exit (a CPU profile is written then). */
export async function stopServer(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
}
