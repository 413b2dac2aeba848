/**
 * The README's `pnpm start`, run as a user runs it: the real command from the repository root, in its own process
 * group, stopped the way a terminal's Ctrl-C stops it (SIGINT to the whole group: pnpm, tsx and the server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** pnpm's lines for a script that failed. */
const PNPM_FAILURE = /ERR_PNPM|ELIFECYCLE|Command failed/;

let dataDir: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'docevals-pnpm-start-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  }
  await rm(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `pnpm start` at the repository root, as the leader of a new process group (as a shell runs a foreground job). */
function pnpmStart(env: Record<string, string>): Started {
  const child = spawn('pnpm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, HOST: '127.0.0.1', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

async function listening(started: Started): Promise<string> {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    const match = /docevals listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(started.output());
    if (match) return match[1]!;
    if (started.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`pnpm start did not listen:\n${started.output()}`);
}

describe('pnpm start (the README command)', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`stops on ${signal} to its process group with exit code 0 and no pnpm error line`, async () => {
      const started = pnpmStart({ PORT: '0', DOCEVALS_API_KEYS: 'start-key:start' });
      const url = await listening(started);
      const answered = await fetch(`${url}/v1/evals`, { headers: { 'api-key': 'start-key' } });
      expect(answered.status).toBe(200);
      // The API reference from the bundled server (the page the start message names), and redoc's renderer, found
      // although the bundle cannot resolve it.
      const page = await fetch(`${url}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toContain('/docs/redoc.standalone.js');
      const renderer = await fetch(`${url}/docs/redoc.standalone.js`);
      expect(renderer.status).toBe(200);
      expect((await renderer.text()).length).toBeGreaterThan(100_000);

      process.kill(-started.child.pid!, signal);
      expect(await started.exited, started.output()).toEqual({ code: 0, signal: null });
      expect(started.output()).toContain(`${signal}: finishing the requests in flight, then closing the storage`);
      expect(started.output()).not.toMatch(PNPM_FAILURE);
    });
  }

  it('bundles the server again only when one of its sources changed since the last bundle', async () => {
    const run = async () => {
      const started = pnpmStart({ PORT: '0', DOCEVALS_API_KEYS: 'k:o' });
      await listening(started);
      process.kill(-started.child.pid!, 'SIGINT');
      expect((await started.exited).code).toBe(0);
      return started.output();
    };
    await run(); // whatever the tree's state, a bundle is fresh after this
    expect(await run()).not.toContain('docevals: bundling the server');

    const source = join(ROOT, 'apps/server/src/request-log.ts');
    const { atime, mtime } = await stat(source);
    try {
      const later = new Date(Date.now() + 2_000);
      await utimes(source, later, later);
      expect(await run()).toContain('docevals: bundling the server from its sources');
    } finally {
      await utimes(source, atime, mtime);
    }
  });

  it('refuses a taken port at once, naming the port and how to choose another', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const started = pnpmStart({ PORT: String(port) });
      const { code } = await started.exited;
      expect(code).toBe(1);
      expect(started.output()).toContain(
        `docevals: cannot start: port ${port} is already in use on 127.0.0.1 (another server is listening there). ` +
          'Stop it, or choose another port: PORT=3000 pnpm start',
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('refuses a data folder another server is using, before doing anything else', async () => {
    const first = pnpmStart({ PORT: '0', DOCEVALS_API_KEYS: 'k:o' });
    await listening(first);
    const second = pnpmStart({ PORT: '0', DOCEVALS_API_KEYS: 'k:o' });
    const { code } = await second.exited;
    expect(code).toBe(1);
    expect(second.output()).toMatch(/docevals: cannot start: .*in use/);
    expect(second.output()).not.toMatch(/docevals listening/);
    process.kill(-first.child.pid!, 'SIGINT');
    expect((await first.exited).code).toBe(0);
  });
});
