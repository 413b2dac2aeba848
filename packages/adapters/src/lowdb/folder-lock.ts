import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DocevalsError } from '@docevals/core';
import { PRIVATE_FILE } from './file-modes.js';

/** What the lock file says about its owner. */
interface LockOwner {
  pid: number;
  hostname: string;
}

/** A held lock on a folder; `release()` is idempotent. */
export interface FolderLock {
  readonly path: string;
  release(): void;
}

/**
 * Locks held by this process, by lock path. On `globalThis` so that two copies of this module (ESM and CJS builds,
 * test runners) still see each other; a second open of a held folder in the same process is refused too.
 */
const HELD_KEY = Symbol.for('docevals.lowdb.heldLocks');
type Held = Map<string, string>;
function heldLocks(): Held {
  const existing = Reflect.get(globalThis, HELD_KEY) as Held | undefined;
  if (existing) return existing;
  const held: Held = new Map();
  Reflect.set(globalThis, HELD_KEY, held);
  // A host that exits without close() leaves no lock behind. Only on exit: a crash or kill -9 leaves a stale
  // lock, which the next opener takes over once it sees the pid is dead.
  process.once('exit', () => {
    for (const [path, content] of held) removeIfOurs(path, content);
  });
  return held;
}

/** An owner that died within this long after creating the file may not have written its pid yet. */
const UNWRITTEN_GRACE_MS = 2_000;

/**
 * Takes `<dir>/.lock` for this process, created with `wx` so that exactly one opener wins. A lock whose owner is
 * dead (same host, pid gone) is taken over; a live owner, or one on another host whose liveness cannot be checked,
 * is refused with a `storage_error` naming the folder and the pid.
 */
export function acquireFolderLock(dir: string, lockPath: string): FolderLock {
  const held = heldLocks();
  if (held.has(lockPath)) {
    throw new DocevalsError(
      'storage_error',
      `The lowdb storage folder "${dir}" is already open in this process (pid ${process.pid}). Close the other ` +
        'lowdbStorage first, or share one instance: two instances of one folder would overwrite each other.',
    );
  }
  // The token tells this lock from one a previous process with the same pid left behind.
  const content = `${JSON.stringify({ pid: process.pid, hostname: hostname(), token: randomUUID() })}\n`;

  // Enough rounds to outwait an unwritten lock (50 ms each, past UNWRITTEN_GRACE_MS) and a few takeover races.
  for (let attempt = 0; attempt < 100; attempt++) {
    if (tryCreate(lockPath, content)) {
      held.set(lockPath, content);
      return {
        path: lockPath,
        release() {
          if (!held.has(lockPath)) return;
          held.delete(lockPath);
          removeIfOurs(lockPath, content);
        },
      };
    }
    const existing = readOrNull(lockPath);
    if (existing === null) continue; // Removed meanwhile: try again.
    const owner = parseOwner(existing);
    if (owner === null) {
      // Created but not yet written, or its writer died in between: only the age tells.
      if (ageMs(lockPath) < UNWRITTEN_GRACE_MS) {
        sleepSync(50);
        continue;
      }
    } else if (isAlive(owner)) {
      throw lockedBy(dir, owner);
    }
    takeOverStale(lockPath, existing);
  }
  throw new DocevalsError('storage_error', `Could not take the lock of the lowdb storage folder "${dir}": it keeps changing hands.`);
}

function tryCreate(lockPath: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', PRIVATE_FILE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Removes a stale lock without removing a fresh one: two processes may both find the same stale lock, and the
 * slower one must not delete the lock the faster one just created. Moving the file aside is atomic (only one mover
 * gets it); if what was moved is not the stale content that was judged, it is put back.
 */
function takeOverStale(lockPath: string, staleContent: string): void {
  const aside = `${lockPath}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readOrNull(aside);
  if (moved !== staleContent) {
    try {
      linkSync(aside, lockPath); // fails if yet another lock exists: then that one stands
    } catch {
      // Nothing to restore over: the next attempt reads whichever lock is there now.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
}

function isAlive(owner: LockOwner): boolean {
  if (owner.hostname !== hostname()) return true; // Cannot see another host's processes: assume it still runs.
  if (owner.pid === process.pid) {
    // Our own pid but not one of our locks: a previous process that had the same pid (a restarted container
    // often runs as the same pid) died without removing it.
    return false;
  }
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, but belongs to another user
  }
}

function lockedBy(dir: string, owner: LockOwner): DocevalsError {
  const where = owner.hostname === hostname() ? '' : ` on host "${owner.hostname}"`;
  return new DocevalsError(
    'storage_error',
    `The lowdb storage folder "${dir}" is in use by another process (pid ${owner.pid}${where}). lowdb serializes ` +
      'writes only inside one process, so a folder can be opened by one process at a time: stop that process, ' +
      'point this one at another folder, or use a shared store such as Redis.',
  );
}

function parseOwner(text: string): LockOwner | null {
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (Number.isInteger(parsed.pid) && (parsed.pid as number) > 0 && typeof parsed.hostname === 'string') {
      return { pid: parsed.pid as number, hostname: parsed.hostname };
    }
  } catch {
    // Not JSON: maybe a bare pid written by hand.
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? { pid, hostname: hostname() } : null;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function removeIfOurs(lockPath: string, content: string): void {
  try {
    if (readFileSync(lockPath, 'utf8') === content) unlinkSync(lockPath);
  } catch {
    // Already gone, or unreadable: nothing of ours to remove.
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
