// Benchmark (not a test): how long `pnpm start` takes from the command to "docevals listening", and that Ctrl-C
// (SIGINT to the process group, as a terminal sends it) ends it with exit code 0. `pnpm bench start`.
// Runs the README's command from the repository root BENCH_STARTS times (default 5) on a fresh DATA_DIR each time,
// one after another. The first run may pay for tsx's transform cache if this tree never ran; the rest are "second
// starts". Prints each run and the median of the runs after the first.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const STARTS = Number(process.env.BENCH_STARTS ?? 5);

async function once(): Promise<{ listeningMs: number; exitCode: number | null; stopMs: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'docevals-start-bench-'));
  const started = performance.now();
  const child = spawn('pnpm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, DOCEVALS_API_KEYS: 'bench:bench' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listeningMs = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('docevals listening on')) resolve(performance.now() - started);
    });
    void exited.then(() => reject(new Error(`pnpm start exited before listening:\n${output}`)));
  });
  const stopping = performance.now();
  process.kill(-child.pid!, 'SIGINT');
  const exitCode = await exited;
  const stopMs = performance.now() - stopping;
  rmSync(dataDir, { recursive: true, force: true });
  return { listeningMs, exitCode, stopMs };
}

console.log(`node ${process.version}, ${cpus().length} x ${cpus()[0]?.model}, load average ${loadavg()[0]!.toFixed(2)}`);
const runs = [];
for (let i = 0; i < STARTS; i++) {
  const run = await once();
  runs.push(run);
  console.log(`start ${i + 1}: listening after ${run.listeningMs.toFixed(0)} ms; Ctrl-C: exit code ${run.exitCode} after ${run.stopMs.toFixed(0)} ms`);
}
const later = runs.slice(1).map((r) => r.listeningMs).sort((a, b) => a - b);
if (later.length > 0) {
  console.log(`second and later starts: median ${later[Math.floor(later.length / 2)]!.toFixed(0)} ms, max ${later.at(-1)!.toFixed(0)} ms`);
}
