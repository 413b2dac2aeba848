import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PRIVATE_FILE } from './file-modes.js';

/**
 * Writes `data` to `path` so that a caller told "done" keeps it: into `tempPath`, fsync, rename over `path`, fsync
 * the folder. Readers never see a torn file (rename is atomic), a process killed at any point leaves the old or the
 * new file, and the fsyncs make the new one survive a power cut too: rename alone orders names, not data blocks.
 * lowdb's own writer (steno) does temp file + rename without any fsync.
 */
export async function writeFileDurably(path: string, tempPath: string, data: string | Uint8Array | readonly string[]): Promise<void> {
  await writeAndSync(tempPath, data);
  try {
    await rename(tempPath, path);
  } catch (error) {
    await removeFile(tempPath).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(path));
}

/** Creates or truncates `path`, writes `data` (lines: joined with line breaks) and fsyncs it before closing. */
export async function writeAndSync(path: string, data: string | Uint8Array | readonly string[]): Promise<void> {
  const handle = await open(path, 'w', PRIVATE_FILE);
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
    else await writeLines(handle, data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The buffer {@link writeLines} fills and writes, again and again. */
const LINES_BUFFER = 1 << 20;

/**
 * Writes `lines` joined with line breaks through one buffer of {@link LINES_BUFFER} bytes, never holding the whole
 * text: on a machine where fresh memory is slow (a virtual machine's page faults), a journal of tens of megabytes
 * built as one string, then encoded, cost more than writing it.
 */
async function writeLines(handle: FileHandle, lines: readonly string[]): Promise<void> {
  const buffer = Buffer.allocUnsafe(LINES_BUFFER);
  let used = 0;
  const flush = async () => {
    for (let at = 0; at < used; ) at += (await handle.write(buffer, at, used - at)).bytesWritten;
    used = 0;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // At most 3 bytes of UTF-8 per UTF-16 unit (a surrogate pair: 4 bytes for 2 units), and the line break.
    if (line.length * 3 + 1 > LINES_BUFFER - used) await flush();
    if (i > 0) buffer[used++] = 0x0a;
    if (line.length * 3 > LINES_BUFFER - used) {
      await flush();
      await handle.write(line);
    } else used += buffer.write(line, used);
  }
  await flush();
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
