/**
 * The docs run as written: every fenced `sh` / `bash` / `shell` and `ts` / `typescript` block of README.md and
 * docs/**\/*.md, except the ones marked as fragments (```` ```ts fragment ````, whose first line says why).
 *
 * - TypeScript: every block is a file of its own in a temp folder outside the repository; all of them type-check
 *   strict in one `tsc` run against the workspace packages' sources, then each runs with tsx, with the servers it
 *   talks to on loopback (`DOCEVALS_URL` / `DOCEVALS_API_KEY`: a started standalone server; `REDIS_URL`,
 *   `DATABASE_URL`: the test run's; `OPENAI_BASE_URL`: a fake OpenAI-compatible server). A block that listens gets a
 *   free port instead of the one it names (3000 would collide with servers on the machine) and must answer an HTTP
 *   request there; any other block must finish without an error.
 * - Shell: the blocks of one page run in order in one bash (`set -euo pipefail`, so a variable no block set fails;
 *   `curl` fails on an HTTP error status), from a folder outside the repository holding the reader's own files the
 *   blocks name (documents, schema, annotations), with `docevals` on the PATH (the command built from the sources)
 *   and the server's address and key where the page tells the reader to put them (`KEY=dk_...`, `BASE=...:3000`).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createStandaloneServer, type StandaloneServer } from '../apps/server/src/app.js';
import { completion, FakeOpenAIServer } from './fake-openai-server.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const tsxLoader = pathToFileURL(join(realpathSync(join(ROOT, 'node_modules/tsx')), 'dist/loader.mjs')).href;

export interface DocBlock {
  /** The page, relative to the repository root. */
  file: string;
  /** The line of the opening fence. */
  line: number;
  lang: 'sh' | 'ts';
  fragment: boolean;
  code: string;
}

const LANGS: Record<string, 'sh' | 'ts'> = { sh: 'sh', bash: 'sh', shell: 'sh', ts: 'ts', typescript: 'ts' };

/** The shell and TypeScript blocks of a page, in order. */
export function docBlocks(markdown: string, file: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  let open: { fence: string; indent: number; lang: string; info: string; line: number; body: string[] } | null = null;
  markdown.split('\n').forEach((text, i) => {
    if (!open) {
      const match = /^( *)(`{3,})\s*([\w-]*)\s*(.*)$/.exec(text);
      if (match) open = { indent: match[1]!.length, fence: match[2]!, lang: match[3]!, info: match[4]!.trim(), line: i + 1, body: [] };
      return;
    }
    if (text.trim() === open.fence) {
      const lang = LANGS[open.lang];
      if (lang) blocks.push({ file, line: open.line, lang, fragment: open.info.split(/\s+/).includes('fragment'), code: open.body.join('\n') + '\n' });
      open = null;
      return;
    }
    open.body.push(text.slice(Math.min(open.indent, /^ */.exec(text)![0].length)));
  });
  return blocks;
}

/** README.md and every page under docs/ (the generated API reference aside). */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md') && !path.startsWith('api/'))
    .map((path) => `docs/${path}`)
    .sort();
  return ['README.md', ...docs];
}

const blocks = pages().flatMap((file) => docBlocks(readFileSync(join(ROOT, file), 'utf8'), file));
const slug = (block: DocBlock) => `${block.file.replace(/\W+/g, '_')}_L${block.line}`;
const tsBlocks = blocks.filter((block) => block.lang === 'ts' && !block.fragment);
const shellPages = [...new Set(blocks.filter((block) => block.lang === 'sh' && !block.fragment).map((block) => block.file))];

// ----------------------------------------------------------------------------------------------------------------
// The reader's world: a standalone server with a key, a fake OpenAI-compatible provider, the test run's Redis and
// PostgreSQL, and a temp folder outside the repository.

const KEY = 'dk_docs_blocks';
let work: string;
let app: StandaloneServer;
let base: string;
const fake = new FakeOpenAIServer();
let env: Record<string, string>;

/** What a model would read off the fake's documents: every `Name: value` line whose name is a field of the schema. */
function readFields(body: any): Record<string, unknown> {
  const schema = body?.response_format?.json_schema?.schema ?? {};
  const text = JSON.stringify(body?.messages ?? []).replace(/\\n/g, '\n');
  const fields: Record<string, unknown> = {};
  for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
    const match = new RegExp(`^.*?${name.replace(/_/g, '[ _]')}\\s*:\\s*([^\\n"\\\\]+)`, 'im').exec(text);
    const types = [property?.type].flat();
    fields[name] = match ? (types.includes('number') && !Number.isNaN(Number(match[1])) ? Number(match[1]) : match[1]!.trim()) : null;
  }
  return fields;
}

/** The library packages the blocks may import. */
const docevalsPackages = ['core', 'adapters', 'openai', 'rest', 'trpc', 'bullmq', 'web'];

/** Newest modification time of the files under `dir`. */
function newest(dir: string): number {
  return Math.max(0, ...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((path) => statSync(join(dir, path)).mtimeMs));
}

/** The package's dist is there and newer than every source file. */
function isBuilt(name: string): boolean {
  const types = join(ROOT, 'packages', name, 'dist/index.d.ts');
  return existsSync(types) && statSync(types).mtimeMs >= newest(join(ROOT, 'packages', name, 'src'));
}

/** The TypeScript project the blocks are checked and run in: the workspace's paths, the packages they import. */
async function tsProject(): Promise<string> {
  const dir = join(work, 'ts');
  await mkdir(join(dir, 'blocks'), { recursive: true });
  // The packages as built (`pnpm build`, as CI does before the tests) when every build is newer than its sources: the
  // blocks then import them as a host does, through package.json `exports`, and type-check against the declaration
  // files (a few seconds). Otherwise against the sources, through the workspace's paths (slower: tsc checks them too).
  const built = docevalsPackages.every(isBuilt);
  const rootConfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'));
  const paths = built
    ? undefined
    : Object.fromEntries(
        Object.entries<string[]>(rootConfig.compilerOptions.paths).map(([name, targets]) => [name, targets.map((target) => join(ROOT, target))]),
      );
  if (built) {
    await mkdir(join(dir, 'node_modules/@docevals'), { recursive: true });
    for (const name of docevalsPackages) await symlink(join(ROOT, 'packages', name), join(dir, 'node_modules/@docevals', name));
  }
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        moduleDetection: 'force',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: ['node'],
        esModuleInterop: true,
        resolveJsonModule: true,
        isolatedModules: true,
        skipLibCheck: true,
        paths,
      },
      include: ['blocks/*.ts'],
    }),
  );
  // The third-party packages the blocks import, linked from the workspace package that depends on them.
  const holders = ['.', ...['packages', 'apps', 'examples'].flatMap((top) => readdirSync(join(ROOT, top)).map((name) => `${top}/${name}`))];
  const find = (name: string) => holders.map((holder) => join(ROOT, holder, 'node_modules', name)).find((path) => existsSync(path));
  const imported = new Set(['@types/node']);
  for (const block of tsBlocks) {
    for (const [, specifier] of block.code.matchAll(/from '([^'.][^']*)'/g)) {
      if (specifier!.startsWith('node:') || specifier!.startsWith('@docevals/')) continue;
      const name = specifier!.split('/').slice(0, specifier!.startsWith('@') ? 2 : 1).join('/');
      imported.add(name);
      if (!name.startsWith('@')) imported.add(`@types/${name}`);
    }
  }
  for (const name of imported) {
    const found = find(name);
    if (!found) {
      if (name.startsWith('@types/')) continue;
      throw new Error(`the docs import ${name}, which no workspace package depends on`);
    }
    await mkdir(dirname(join(dir, 'node_modules', name)), { recursive: true });
    await symlink(realpathSync(found), join(dir, 'node_modules', name));
  }
  for (const block of tsBlocks) await writeFile(join(dir, 'blocks', `${slug(block)}.ts`), block.code);
  // An ES module app, as a host's (top-level await).
  await writeFile(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  // Imports the block after making every server it starts listen on a free port, reported on stdout.
  await writeFile(
    join(dir, 'runner.mjs'),
    `import net from 'node:net';
import { pathToFileURL } from 'node:url';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\\d+$/.test(args[0]))) args[0] = 0;
  else if (args[0] && typeof args[0] === 'object' && 'port' in args[0]) args[0] = { ...args[0], port: 0 };
  this.once('listening', () => process.stdout.write('\\n@@listening ' + this.address().port + '\\n'));
  return listen.apply(this, args);
};
await import(pathToFileURL(process.argv[2]).href);
process.stdout.write('\\n@@done\\n');
`,
  );
  return dir;
}

/** The reader's own files that shell blocks name as their input. */
async function readerFiles(dir: string): Promise<void> {
  const schema = {
    type: 'object',
    properties: { invoice_number: { type: ['string', 'null'] }, vendor: { type: ['string', 'null'] }, total: { type: ['number', 'null'] } },
  };
  const invoices = [1, 2, 3].map((n) => ({ filename: `invoice-${n}.txt`, annotation: { invoice_number: `INV-${n}`, vendor: 'ACME', total: 40 + n } }));
  for (const folder of ['invoices', 'eval-docs']) {
    await mkdir(join(dir, folder), { recursive: true });
    for (const { filename, annotation: a } of invoices) {
      await writeFile(join(dir, folder, filename), `Invoice number: ${a.invoice_number}\nVendor: ${a.vendor}\nTotal: ${a.total}\n`);
    }
  }
  await writeFile(join(dir, 'schema.json'), JSON.stringify(schema, null, 2));
  const jsonl = invoices.map((line) => JSON.stringify(line)).join('\n') + '\n';
  await writeFile(join(dir, 'annotations.jsonl'), jsonl);
  await writeFile(join(dir, 'truth.jsonl'), jsonl);
}

let tsDir: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'docevals-docs-'));
  await fake.start();
  fake.handle = (request) => ({ body: completion(readFields(request.body)) });
  const dataDir = join(work, 'server-data');
  app = await createStandaloneServer(
    { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DOCEVALS_API_KEYS: `${KEY}:org_docs`, OPENAI_API_KEY: 'sk-docs', OPENAI_BASE_URL: fake.baseURL, LOG_LEVEL: 'silent' },
    { log: () => {} },
  );
  base = await app.listen();
  env = {
    ...(process.env as Record<string, string>),
    NO_COLOR: '1',
    DOCEVALS_URL: base,
    DOCEVALS_API_KEY: KEY,
    REDIS_URL: inject('redisUrl'),
    DATABASE_URL: inject('databaseUrl'),
    OPENAI_API_KEY: 'sk-docs',
    OPENAI_BASE_URL: fake.baseURL,
    // A CI variable the CI example reads.
    MODEL: 'gpt-4.1-mini',
  };
  tsDir = await tsProject();
  // `docevals` on the PATH: the command as setup builds it (scripts/build-cli.mjs), here into the temp folder.
  await run(process.execPath, [join(ROOT, 'scripts/build-cli.mjs'), join(work, 'cli')], { cwd: ROOT });
  await mkdir(join(work, 'bin'));
  await writeFile(join(work, 'bin/docevals'), `#!/bin/sh\nexec "${process.execPath}" "${join(work, 'cli/cli.js')}" "$@"\n`);
  await chmod(join(work, 'bin/docevals'), 0o755);
  env.PATH = `${join(work, 'bin')}:${process.env.PATH}`;
}, 120_000);

afterAll(async () => {
  await app?.close(100);
  await fake.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the blocks of README.md and docs/', () => {
  it('are found, and every fragment says why on its first line', () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(15);
    expect(shellPages).toEqual(expect.arrayContaining(['README.md', 'docs/cli.md', 'docs/rest.md']));
    for (const block of blocks.filter((b) => b.fragment)) {
      expect(block.code.split('\n')[0], `${block.file}:${block.line}`).toMatch(block.lang === 'ts' ? /^\/\/ / : /^# /);
    }
  });

  it('type-check strict against the workspace packages (TypeScript blocks)', async () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', join(tsDir, 'tsconfig.json')], { cwd: tsDir }).catch(
      (error: { stdout: string; stderr: string; code: number }) => error,
    );
    // `blocks/README_md_L70.ts(3,5)` -> `README.md:73` (the fence's line + the line in the block).
    const where = (output: string) =>
      output.replace(/blocks\/(\w+)_L(\d+)\.ts\((\d+),\d+\)/g, (_, page: string, line: string, inBlock: string) => {
        const block = tsBlocks.find((b) => slug(b) === `${page}_L${line}`);
        return `${block?.file}:${Number(line) + Number(inBlock)}`;
      });
    // Type errors are on stdout; a compiler that could not run at all says why on stderr with a non-zero exit.
    expect(where(checked.stdout)).toBe('');
    expect('code' in checked ? `tsc exited ${checked.code}: ${checked.stderr.slice(-2000)}` : 'ok').toBe('ok');
  }, 120_000);

  for (const block of tsBlocks) {
    // Concurrently: each is a process of its own, mostly waiting for its start.
    it.concurrent(`runs ${block.file}:${block.line} (TypeScript)`, async ({ expect }) => {
      const cwd = join(work, 'run', slug(block));
      await mkdir(cwd, { recursive: true });
      // One node process with tsx's loader (the tsx command would start a second one).
      const child = spawn(process.execPath, ['--import', tsxLoader, join(tsDir, 'runner.mjs'), join(tsDir, 'blocks', `${slug(block)}.ts`)], {
        cwd,
        env: { ...env, TSX_TSCONFIG_PATH: join(tsDir, 'tsconfig.json') },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      const kill = () => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // gone already
        }
      };
      try {
        // Done (top-level code finished) or exited, whichever comes first.
        const until = Date.now() + 45_000;
        while (!stdout.includes('\n@@done\n') && child.exitCode === null && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
        const report = () => `${block.file}:${block.line}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`;
        expect(stdout, report()).toContain('\n@@done\n');
        const ports = [...stdout.matchAll(/^@@listening (\d+)$/gm)].map((match) => match[1]!);
        for (const port of ports) {
          const answer = await fetch(`http://127.0.0.1:${port}/`);
          // The web handler's 503 while its app is not built (`pnpm build`, which CI runs first) is an answer too.
          const unbuiltWebApp = answer.status === 503 && (await answer.text()).includes('pnpm build');
          if (!unbuiltWebApp) expect(answer.status, report()).toBeLessThan(500);
        }
        // A block that leaves handles open (a server, a connection) is stopped; one that ends must end well.
        const code = await Promise.race([exited, new Promise((r) => setTimeout(r, ports.length ? 0 : 1_500, 'running'))]);
        if (code !== 'running') expect(code, report()).toBe(0);
        expect(stderr, report()).not.toMatch(/Error|Warning/);
      } finally {
        kill();
      }
    }, 60_000);
  }

  for (const file of shellPages) {
    it(`runs the shell blocks of ${file} in order`, async () => {
      const cwd = join(work, 'sh', file.replace(/\W+/g, '_'));
      await mkdir(cwd, { recursive: true });
      await readerFiles(cwd);
      const page = blocks.filter((block) => block.file === file && block.lang === 'sh' && !block.fragment);
      const script = [
        'set -euo pipefail',
        'curl() { command curl --fail-with-body "$@"; }',
        ...page.map((block) =>
          [
            `echo "@@block ${block.file}:${block.line}" >&2`,
            block.code.replace(/^KEY=dk_\.\.\.(.*)$/m, `KEY=${KEY}$1`).replace(/^BASE=http:\/\/127\.0\.0\.1:3000$/m, `BASE=${base}`),
          ].join('\n'),
        ),
      ].join('\n');
      const ran = await run('bash', ['-c', script], { cwd, env, timeout: 90_000, maxBuffer: 64 * 1024 * 1024 }).catch(
        (error: { stdout: string; stderr: string; code: number }) => error,
      );
      const failedAt = /@@block (\S+)(?![\s\S]*@@block)/.exec(ran.stderr)?.[1];
      expect('code' in ran ? `exit ${ran.code} in the block at ${failedAt}:\n${ran.stderr.slice(-3000)}\n${ran.stdout.slice(-2000)}` : 'ok').toBe('ok');
    }, 120_000);
  }
});
