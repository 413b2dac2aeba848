import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const script = fileURLToPath(new URL('./lowdb-child.ts', import.meta.url));

/** A running lowdb child and the lines it has printed so far. */
export interface Child {
  process: ChildProcess;
  lines: string[];
  /** Resolves with the first printed line that satisfies `test` (rejects if the child exits first). */
  waitFor(test: (line: string, index: number) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves once the child has exited and been reaped, so its pid is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** Starts `lowdb-child.ts <mode> <dir>` with node + tsx, from the repository root (tsx then reads its tsconfig paths). */
export function startChild(mode: 'stream' | 'hold' | 'open', dir: string): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', script, mode, dir], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let errors = '';
  let partial = '';
  const watchers = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const w of watchers) w();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      for (const w of watchers) w();
      resolve({ code, signal });
    }),
  );
  let done = false;
  void exited.then(() => (done = true));

  return {
    process: child,
    lines,
    exited,
    stderr: () => errors,
    waitFor(test, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`timed out; stdout: ${lines.join('|')}; stderr: ${errors}`)), timeoutMs);
        const check = () => {
          const found = lines.find(test);
          if (found !== undefined) finish(undefined, found);
          else if (done || child.exitCode !== null || child.signalCode !== null) {
            finish(new Error(`child exited first; stdout: ${lines.join('|')}; stderr: ${errors}`));
          }
        };
        const finish = (error?: Error, line?: string) => {
          clearTimeout(timer);
          watchers.delete(check);
          if (error) reject(error);
          else resolve(line!);
        };
        watchers.add(check);
        check();
      });
    },
  };
}
