import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PRIVATE_FILE } from './file-modes.js';

/**
 * Writes `data` to `path` so that a caller told "done" keeps it: into `tempPath`, fsync, rename over `path`, fsync
 * the folder. Readers never see a torn file (rename is atomic), a process killed at any point leaves the old or the
 * new file, and the fsyncs make the new one survive a power cut too: rename alone orders names, not data blocks.
 * lowdb's own writer (steno) does temp file + rename without any fsync.
 */
export async function writeFileDurably(path: string, tempPath: string, data: string | Uint8Array): Promise<void> {
  await writeAndSync(tempPath, data);
  try {
    await rename(tempPath, path);
  } catch (error) {
    await removeFile(tempPath).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(path));
}

/** Creates or truncates `path`, writes `data` and fsyncs it before closing. */
export async function writeAndSync(path: string, data: string | Uint8Array): Promise<void> {
  const handle = await open(path, 'w', PRIVATE_FILE);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Makes a rename or unlink in `folder` durable. Some platforms cannot fsync a folder (Windows: EPERM/EISDIR, some
 * network file systems: EINVAL); there the rename is as durable as the platform makes it, and that is accepted.
 */
export async function syncFolder(folder: string): Promise<void> {
  let handle;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EBADF' && code !== 'EACCES') throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Removes a file; one already gone is fine. `rm(path, { force: true })` does the same with an `lstat` first and its
 * directory walk's promises: three times the main thread's work for a journal removed after every commit.
 */
export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
