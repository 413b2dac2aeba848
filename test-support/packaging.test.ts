/**
 * The packages as a host gets them: every library package packed with `pnpm pack` (as published: `workspace:^`
 * becomes a caret range), installed with npm into a fresh app outside the repository (test-support/packaging-app),
 * type-checked strict with `nodenext` and with `bundler` (lib ES2023, no DOM; no optional peer installed: no pg,
 * ioredis, redoc), then run: Express 5 mounting REST + tRPC + the web app under /evals with the host's cookie auth,
 * and the service built from the CommonJS copy of the core while the transports use the ES module one.
 *
 * Needs `pnpm build` first (CI runs it before the tests). npm downloads the third-party dependencies (express,
 * @trpc/*, typescript, @types/node) once into a cache in the temp folder (`docevals-npm-cache`): later runs install
 * from it (`--prefer-offline`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const PACKAGES = ['core', 'adapters', 'rest', 'trpc', 'web'];
const npmCache = join(tmpdir(), 'docevals-npm-cache');

let app: string;
let server: ChildProcess | undefined;
let base: string;

beforeAll(async () => {
  for (const name of PACKAGES) {
    if (!existsSync(join(root, 'packages', name, 'dist', 'index.js'))) throw new Error(`packages/${name} is not built: run pnpm build first.`);
  }
  const work = await mkdtemp(join(tmpdir(), 'docevals-packaging-'));
  app = join(work, 'app');
  await cp(join(root, 'test-support/packaging-app'), app, { recursive: true });
  const tarballs = join(work, 'tarballs');
  await mkdir(tarballs);
  for (const name of PACKAGES) await run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: join(root, 'packages', name) });
  const files = await readdir(tarballs);
  const tarball = (name: string) => `file:${join(tarballs, files.find((file) => file.startsWith(`docevals-${name}-`))!)}`;
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'host-app',
      private: true,
      type: 'module',
      dependencies: {
        ...Object.fromEntries(PACKAGES.map((name) => [`@docevals/${name}`, tarball(name)])),
        express: '5.3.0',
        '@trpc/server': '11.25.2',
        '@trpc/client': '11.25.2',
      },
      devDependencies: { typescript: '5.9.3', '@types/node': '20.19.43', '@types/express': '5.0.6' },
    }),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--cache', npmCache], { cwd: app });
  return () => rm(work, { recursive: true, force: true });
}, 600_000);

afterAll(() => {
  server?.kill();
});

const tsc = (project: string) => run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: app });

describe('the packed packages in a fresh app', () => {
  it('installs without any optional peer', () => {
    for (const peer of ['pg', 'ioredis', 'redoc', 'lowdb', 'vitest']) expect(existsSync(join(app, 'node_modules', peer)), peer).toBe(false);
    // One copy of the core: the transports take it as a peer.
    expect(existsSync(join(app, 'node_modules/@docevals/rest/node_modules/@docevals/core'))).toBe(false);
  });

  it('type-checks strict with moduleResolution bundler, lib ES2023 and no DOM', async () => {
    await expect(tsc('tsconfig.bundler.json')).resolves.toBeDefined();
  }, 180_000);

  it('type-checks strict with nodenext and runs: Express 5 serves REST, tRPC and the web app under /evals', async () => {
    await tsc('tsconfig.nodenext.json'); // throws with the compiler's messages on an error
    server = spawn(process.execPath, ['dist/server.js'], { cwd: app, stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<string>((resolvePort, reject) => {
      server!.stdout!.on('data', (chunk: Buffer) => {
        const match = /listening (\d+)/.exec(chunk.toString());
        if (match) resolvePort(match[1]!);
      });
      server!.on('exit', (code) => reject(new Error(`the app exited with ${code}`)));
    });
    base = `http://127.0.0.1:${port}`;
    const cookie = { cookie: 'sid=s_good' };

    // REST with the host's cookie; a 401 in the host's words; a 404 from the CommonJS core stays a 404.
    expect((await fetch(`${base}/evals/v1/evals`, { headers: cookie })).status).toBe(200);
    const refused = await fetch(`${base}/evals/v1/evals`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Cookie realm="acme"');
    expect((await refused.json()).error.message).toBe('Sign in to acme first.');
    const missing = await fetch(`${base}/evals/v1/evals/eval_missing`, { headers: cookie });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('not_found');

    // tRPC through Express's adapter, with a typed client: the 404 is NOT_FOUND there too.
    const { stdout } = await run(process.execPath, ['dist/client.js', base], { cwd: app });
    expect(JSON.parse(stdout)).toEqual({ listed: 0, missing: 'NOT_FOUND' });

    // The web app under /evals: its page names the base, its assets load from under it.
    const page = await fetch(`${base}/evals/evals/eval_1`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<base href="/evals/">');
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${base}/evals/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
  }, 180_000);
});
