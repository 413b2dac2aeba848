import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { ByOrganization, FileMeta } from './state.js';
import { removeFile, syncFolder, writeAndSync } from './durable-write.js';
import { safeName } from './safe-name.js';
import { PRIVATE_FOLDER } from './file-modes.js';

/**
 * File contents, one file per (organization, file_id): `<root>/<organization>/<file_id>`. Written once through a
 * temp file + fsync + rename and never rewritten, so changing an annotation (a JSON db write) never touches them.
 */
export class ContentFolder {
  readonly root: string;
  #staged = 0;

  constructor(root: string) {
    this.root = root;
  }

  pathOf(organizationId: string, fileId: string): string {
    return join(this.root, safeName(organizationId), safeName(fileId));
  }

  /**
   * Writes `bytes` to a temp file beside their final place and fsyncs it; {@link commit} moves it in. Done outside
   * the storage's write lock, so a large upload does not hold up every other write.
   */
  async stage(organizationId: string, fileId: string, bytes: Uint8Array): Promise<string> {
    const folder = join(this.root, safeName(organizationId));
    await mkdir(folder, { recursive: true, mode: PRIVATE_FOLDER });
    // A leading dot: no content file name starts with one (see safeName), and the open-time sweep removes leftovers.
    const temp = join(folder, `.${safeName(fileId)}.${process.pid}.${++this.#staged}.tmp`);
    await writeAndSync(temp, bytes);
    return temp;
  }

  /** Moves a staged file to its final name, durably. */
  async commit(staged: string, organizationId: string, fileId: string): Promise<void> {
    await rename(staged, this.pathOf(organizationId, fileId));
    await syncFolder(join(this.root, safeName(organizationId)));
  }

  async discard(path: string): Promise<void> {
    await removeFile(path).catch(() => undefined);
  }

  /** The bytes, or null when the file is not there. */
  async read(organizationId: string, fileId: string): Promise<Uint8Array | null> {
    try {
      const buffer = await readFile(this.pathOf(organizationId, fileId));
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /**
   * Removes what no db entry refers to: temp files of a process that died mid-upload, and contents whose db entry
   * was never written (killed between the two writes) or already removed (killed between db write and unlink).
   * Runs at open, while the folder lock is held, so no other writer can be mid-way.
   */
  sweep(files: ByOrganization<FileMeta>): void {
    mkdirSync(this.root, { recursive: true, mode: PRIVATE_FOLDER });
    const expected = new Map<string, Set<string>>();
    for (const [org, metas] of files) expected.set(safeName(org), new Set(Array.from(metas.keys(), safeName)));
    for (const folder of readdirSync(this.root, { withFileTypes: true })) {
      if (!folder.isDirectory()) continue;
      const keep = expected.get(folder.name);
      for (const name of readdirSync(join(this.root, folder.name))) {
        if (!keep?.has(name)) rmSync(join(this.root, folder.name, name), { force: true, recursive: true });
      }
    }
  }
}
