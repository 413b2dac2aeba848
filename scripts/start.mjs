#!/usr/bin/env node
// `pnpm start`: the standalone server (apps/server/src/server.ts), run in this process from one JavaScript
// file that esbuild bundles from the TypeScript sources of the server and the packages (found through tsconfig.json's
// paths) and their dependencies. The bundle is rebuilt only when one of the files it was made from changed, or the
// lockfile did (about a second); otherwise the start only loads it, which takes a fraction of the time module by
// module loading of the sources takes. Nothing is type-checked or built for publishing here (`pnpm build` does that).
import { build, stop } from 'esbuild';
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entry = 'apps/server/src/server.ts';
const cacheDir = join(root, 'node_modules/.cache/docevals');
const bundle = join(cacheDir, 'standalone-server.mjs');
const inputsFile = `${bundle}.inputs.json`;
/** Files whose change makes a new bundle beside the ones esbuild read: dependencies and compiler settings. */
const ALWAYS = ['pnpm-lock.yaml', 'tsconfig.json', 'tsconfig.base.json', 'scripts/start.mjs'];

/** When `file` (relative to the repository root, or absolute) last changed; null when it is not there. */
function mtime(file) {
  try {
    return statSync(resolve(root, file)).mtimeMs;
  } catch {
    return null;
  }
}

/** True when the bundle exists and is newer than every file it was made from. */
function fresh() {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    return false;
  }
  const built = mtime(bundle);
  if (built === null) return false;
  return [...ALWAYS, ...inputs].every((file) => {
    const changed = mtime(file);
    return changed !== null && changed < built; // a file gone is a change too
  });
}

/**
 * Packages that load native binaries (`.node` files) cannot be bundled: they stay outside the bundle, imported by the
 * absolute path esbuild resolves for them (the bundle is a cache of this checkout, rebuilt when the lockfile changes).
 */
const NATIVE = /^(@napi-rs\/canvas|unpdf)(\/|$)/;
const nativeExternal = {
  name: 'native-external',
  setup(b) {
    b.onResolve({ filter: NATIVE }, async (args) => {
      if (args.pluginData === 'native-external') return undefined;
      const resolved = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'native-external' });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, external: true };
    });
  },
};

/**
 * jsonc-parser's `main` is a UMD file whose require() calls esbuild cannot follow (the server then stops with
 * "Cannot find module './impl/format'" as soon as the OpenAI extractor loads): bundle its ES module build instead.
 */
const esmJsoncParser = {
  name: 'esm-jsonc-parser',
  setup(b) {
    b.onResolve({ filter: /^jsonc-parser$/ }, async (args) => {
      if (args.pluginData === 'esm-jsonc-parser') return undefined;
      const resolved = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'esm-jsonc-parser' });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path.replace(/([\\/])lib[\\/]umd[\\/]main\.js$/, '$1lib$1esm$1main.js') };
    });
  },
};

/** Bundles the server into `bundle` (written whole, then renamed: a start running at the same time reads either). */
async function bundleServer() {
  mkdirSync(cacheDir, { recursive: true });
  const temporary = `${bundle}.${process.pid}.tmp`;
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    tsconfig: 'tsconfig.json',
    outfile: temporary,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [nativeExternal, esmJsoncParser],
    // CommonJS dependencies bundled into an ES module still call require().
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  await stop(); // esbuild's service process: not needed while the server runs
  writeFileSync(inputsFile, JSON.stringify(Object.keys(result.metafile.inputs)));
  renameSync(`${temporary}.map`, `${bundle}.map`);
  renameSync(temporary, bundle);
}

if (!fresh()) {
  console.log('docevals: bundling the server from its sources (only when they changed since the last start)');
  try {
    await bundleServer();
  } catch {
    // esbuild has printed what it could not read, with file and line.
    console.error('docevals: cannot start: the server does not bundle from its sources (see above)');
    process.exit(1);
  }
}

// The web app (packages/web): built by Vite into packages/web/dist/app when missing or older than its sources.
const webDir = join(root, 'packages/web');
const webApp = join(webDir, 'dist/app');

/** The newest change among the web app's sources (and the lockfile: a new library version is a change too). */
function newestWebSource() {
  let newest = Math.max(mtime('pnpm-lock.yaml') ?? 0, mtime(join(webDir, 'index.html')) ?? 0, mtime(join(webDir, 'vite.config.ts')) ?? 0);
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, mtime(path) ?? 0);
    }
  };
  walk(join(webDir, 'src'));
  return newest;
}

const builtWeb = mtime(join(webApp, 'index.html'));
if (builtWeb === null || builtWeb < newestWebSource()) {
  console.log('docevals: building the web app (only when its sources changed since the last build)');
  const vite = spawnSync(process.execPath, [join(webDir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: webDir, stdio: 'inherit' });
  if (vite.status !== 0) {
    console.error('docevals: the web app did not build (see above); the API still starts, the app answers 503');
  }
}
process.env.DOCEVALS_WEB_DIR ??= webApp;
// The API reference at /docs: redoc's renderer, resolved from the server's package (the bundle cannot resolve it).
try {
  process.env.DOCEVALS_REDOC_BUNDLE ??= createRequire(join(root, 'apps/server/package.json')).resolve('redoc/bundles/redoc.standalone.js');
} catch {
  // redoc not installed: /docs answers 404 and says so
}

// Stack traces name the TypeScript sources.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(bundle).href);
