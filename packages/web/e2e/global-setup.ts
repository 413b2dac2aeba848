// Starts what the end-to-end tests drive: the fake model provider and the standalone server (`pnpm start`'s own
// entry, scripts/start.mjs) on lowdb in a fresh folder, both on free ports on 127.0.0.1. The server's URL and key
// reach the tests through the environment (E2E_BASE_URL, E2E_API_KEY).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeProvider } from './fake-provider.js';
import { LARGE, seedLargeEvaluation } from './seed.js';

export const API_KEY = 'e2e-key-0123456789';
const root = resolve(import.meta.dirname, '../../..');

/** Starts `scripts/start.mjs` with `env` and resolves with its URL once it prints that it listens (the bench's way too). */
export function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the standalone server did not start in 120 s:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = /docevals listening on (http:\/\/\S+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolveStart({ child, url: found[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (process.env.E2E_SERVER_LOG) process.stderr.write(chunk);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the standalone server exited (${code}) before listening:\n${output}`));
    });
  });
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the server has exited. */
export async function stopServer(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  child.kill('SIGTERM');
  await new Promise<void>((done) => {
    if (child.exitCode !== null) return done();
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done();
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
  });
}

export default async function globalSetup() {
  const provider = await startFakeProvider();
  const dataDir = mkdtempSync(join(tmpdir(), 'docevals-e2e-'));
  const { child, url } = await startServer({
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DOCEVALS_API_KEYS: `${API_KEY}:e2e`,
    OPENAI_API_KEY: 'sk-fake',
    OPENAI_BASE_URL: provider.baseURL,
  });
  const teardown = async () => {
    await stopServer(child);
    await provider.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.env.E2E_BASE_URL = url;
  process.env.E2E_API_KEY = API_KEY;
  process.env.E2E_PROVIDER_URL = provider.baseURL;
  try {
    const seeding = performance.now();
    const large = await seedLargeEvaluation(url, API_KEY);
    process.env.E2E_LARGE_EVAL = JSON.stringify(large);
    console.log(`e2e: seeded ${LARGE.documents} documents x ${LARGE.iterations} iterations in ${Math.round(performance.now() - seeding)} ms`);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
