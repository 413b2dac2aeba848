import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cwd = fileURLToPath(new URL('../..', import.meta.url));

export interface Spawned {
  child: ChildProcess;
  /** What it printed so far (stdout and stderr). */
  output: () => string;
  /** The first match of the ready pattern. */
  ready: RegExpExecArray;
  /** SIGKILL, waits for the exit. */
  kill: () => Promise<void>;
}

/**
 * Starts `node --import tsx <script>` of the standalone example with `env` added to this process's, and waits (up
 * to 60 s) for its output to match `readyPattern`. Register `kill` as a cleanup.
 */
export async function spawnScript(script: string, env: Record<string, string>, readyPattern: RegExp): Promise<Spawned> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  const ready = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${output}`)), 60_000);
    const look = () => {
      const match = readyPattern.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', look);
        resolve(match);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`${script} exited: ${output}`));
    });
  }).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return { child, output: () => output, ready, kill };
}
