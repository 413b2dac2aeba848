#!/usr/bin/env node
// Builds the `docevals` command into one JavaScript file, packages/cli/dist/cli.js (the package's bin) and its chunks, bundled by
// esbuild from the TypeScript sources of the CLI and the packages it uses (found through tsconfig.json's paths) and
// their dependencies: no build of the other packages first, and one file to load, so a command starts quickly.
// `bash scripts/setup.sh` runs it and puts `docevals` on the PATH. `pnpm build` (tsup) writes the same file unbundled.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// An output folder as the first argument builds elsewhere (the docs test puts the command it runs in a temp folder).
const outdir = process.argv[2] ? resolve(process.argv[2]) : join(root, 'packages/cli/dist');
await build({
  absWorkingDir: root,
  entryPoints: ['packages/cli/src/cli.ts'],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  tsconfig: 'tsconfig.json',
  outdir,
  // The commands' code is a chunk of its own, loaded when a command runs: `--help` loads only the first file.
  splitting: true,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  // CommonJS dependencies bundled into an ES module still call require().
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
chmodSync(join(outdir, 'cli.js'), 0o755);
