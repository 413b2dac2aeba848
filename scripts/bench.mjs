#!/usr/bin/env node
// Runs every benchmark script (packages/*/bench/*.bench.ts, apps/*/bench/*.bench.ts, examples/*/bench/*.bench.ts) one after another with tsx.
// `pnpm bench` runs them all; `pnpm bench metrics` runs those whose path contains "metrics" (`pnpm bench bullmq`: the
// queue mode's worker scaling).
// Benchmarks print their own figures; docs/benchmarks.md records them. They are not tests: nothing here fails CI.
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv[2] ?? '';
const files = [];
for (const group of ['packages', 'apps', 'examples']) {
  for (const pkg of readdirSync(join(root, group))) {
    const dir = join(root, group, pkg, 'bench');
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.bench.ts')) files.push(join(dir, f));
  }
}
// Matched on the path inside the repository: a checkout's own path (a worktree named `bullmq`) must not match all.
const chosen = files.filter((f) => f.slice(root.length).includes(filter));
if (chosen.length === 0) {
  console.error(`no benchmark matches "${filter}"`);
  process.exit(1);
}
let failed = 0;
for (const file of chosen) {
  console.log(`\n=== ${file.slice(root.length)}`);
  // The root tsconfig's `paths` map @docevals/* to the packages' sources: benchmarks import packages by name, unbuilt.
  const r = spawnSync('pnpm', ['exec', 'tsx', '--tsconfig', join(root, 'tsconfig.json'), file], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
