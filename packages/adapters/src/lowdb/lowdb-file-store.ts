import type { FileStore, StoredFile } from '@docevals/core';
import pLimit from 'p-limit';
import { copyBytes } from '@docevals/core/storage-kit';
import type { ContentFolder } from './content-folder.js';
import type { LowdbContext } from './lowdb-collections.js';
import type { BatchMove, BatchWrite } from './record-disk.js';
import { getItem, type FileMeta, setItem } from './state.js';

/** Files of a `getMany` read at once. */
const FILE_READS = 8;

/** What the batch operations of the file store need of it. */
interface FileParts {
  ctx: LowdbContext;
  contents: ContentFolder;
  metaOf: (organizationId: string, fileId: string) => FileMeta | undefined;
  setMeta: (organizationId: string, fileId: string, meta: FileMeta | undefined) => void;
}

/**
 * A file's bytes: the content is read after the entry, without the write lock; if the file was released (and maybe
 * stored again) meanwhile, the entry has changed too, and the read starts over from the new entry.
 */
async function readFile({ ctx, contents, metaOf }: FileParts, organizationId: string, fileId: string): Promise<StoredFile | null> {
  for (let attempt = 0; ; attempt++) {
    const meta = metaOf(organizationId, fileId);
    if (!meta) return null;
    await ctx.disk.settled(contents.pathOf(organizationId, fileId)); // moved into place by a batch under way
    const bytes = await contents.read(organizationId, fileId);
    if (bytes !== null && bytes.byteLength === meta.size) return { bytes, mime_type: meta.mime_type };
    if (metaOf(organizationId, fileId) !== meta && attempt < 3) continue;
    throw new Error(
      bytes === null
        ? `the content of a stored file is missing (${contents.pathOf(organizationId, fileId)})`
        : `the content of a stored file has ${bytes.byteLength} bytes, ${meta.size} were stored (${contents.pathOf(organizationId, fileId)})`,
    );
  }
}

/**
 * The reference-counted file store of the lowdb adapter: bytes in `files/<org>/<file_id>` (written once, never
 * rewritten), the count, media type and size in `refs/<org>/<file_id>.json`. A batch is one journal commit; the
 * contents of its new files are staged first and flushed together.
 */
export function lowdbFileStore(ctx: LowdbContext, contents: ContentFolder, log: (message: string, cause: unknown) => void): FileStore {
  const refs = () => ctx.state.refs;
  const metaOf = (organizationId: string, fileId: string) => getItem(refs(), organizationId, fileId);
  const discardContent = async (organizationId: string, fileId: string) => {
    const path = contents.pathOf(organizationId, fileId);
    await ctx.disk.settled(path);
    await contents.discard(path).catch((error: unknown) => log('lowdb: removing a released file failed', error));
  };
  const parts: FileParts = { ctx, contents, metaOf, setMeta: (organizationId, fileId, meta) => setItem(refs(), organizationId, fileId, meta) };

  return {
    async retain(organizationId, fileId, content?: StoredFile) {
      const bytes = content && copyBytes(content.bytes);
      let staged: string | undefined;
      try {
        return await ctx.exclusive('files.retain', async () => {
          const meta = metaOf(organizationId, fileId);
          if (meta) {
            const next = { ...meta, references: meta.references + 1 };
            await ctx.disk.writeOne('files', ctx.layout.ref(organizationId, fileId), refBody(organizationId, fileId, next));
            setItem(refs(), organizationId, fileId, next);
            return true;
          }
          if (!content || !bytes) return false;
          staged = await contents.stage(organizationId, fileId, bytes);
          await ctx.disk.settled(contents.pathOf(organizationId, fileId));
          await contents.commit(staged, organizationId, fileId);
          staged = undefined;
          const next = { references: 1, mime_type: content.mime_type, size: bytes.byteLength };
          try {
            await ctx.disk.writeOne('files', ctx.layout.ref(organizationId, fileId), refBody(organizationId, fileId, next));
          } catch (error) {
            await discardContent(organizationId, fileId);
            throw error;
          }
          setItem(refs(), organizationId, fileId, next);
          return true;
        }, organizationId);
      } finally {
        if (staged) await contents.discard(staged);
      }
    },

    release: (organizationId, fileId) =>
      ctx.exclusive('files.release', async () => {
        const meta = metaOf(organizationId, fileId);
        if (!meta) return;
        const path = ctx.layout.ref(organizationId, fileId);
        if (meta.references > 1) {
          const next = { ...meta, references: meta.references - 1 };
          await ctx.disk.writeOne('files', path, refBody(organizationId, fileId, next));
          setItem(refs(), organizationId, fileId, next);
          return;
        }
        await ctx.disk.deleteOne('files', path);
        setItem(refs(), organizationId, fileId, undefined);
        // After the reference is gone: a crash in between leaves an unreferenced file, which the next open removes.
        await discardContent(organizationId, fileId);
      }, organizationId),

    get: (organizationId, fileId) => ctx.read('files.get', () => readFile(parts, organizationId, fileId)),

    getMany: (organizationId, fileIds) =>
      ctx.read('files.getMany', () => {
        const limit = pLimit(FILE_READS);
        return Promise.all(fileIds.map((fileId) => limit(() => readFile(parts, organizationId, fileId))));
      }),

    retainMany: (organizationId, entries) => retainMany(parts, organizationId, entries),

    releaseMany: (organizationId, fileIds) => ctx.exclusive('files.releaseMany', () => releaseMany(parts, organizationId, fileIds), organizationId),
  };
}

/**
 * Retains a batch: contents of files that look new are staged (plain writes) and flushed together before the commit,
 * outside the write lock, so a large batch of uploads does not hold up other writes while its bytes reach the disk.
 */
async function retainMany(
  f: FileParts,
  organizationId: string,
  entries: ReadonlyArray<{ fileId: string; content?: StoredFile }>,
): Promise<boolean[]> {
  const { ctx, contents, metaOf } = f;
  const staged = new Map<number, string>();
  const allStaged = () => [...staged.values()];
  try {
    await ctx.read('files.retainMany', async () => {
      const seen = new Set<string>();
      const files: Array<{ index: number; finalPath: string; bytes: Uint8Array }> = [];
      for (const [i, entry] of entries.entries()) {
        const content = entry.content;
        if (!content || seen.has(entry.fileId) || metaOf(organizationId, entry.fileId)) continue;
        seen.add(entry.fileId);
        // Its own exact-size copy: a view into a larger buffer (a request body) would send that whole buffer.
        files.push({ index: i, finalPath: contents.pathOf(organizationId, entry.fileId), bytes: copyBytes(content.bytes) });
      }
      await ctx.disk.stageMany(files, (k, temp) => staged.set(files[k]!.index, temp));
      await ctx.disk.flush(allStaged());
    });
    return await ctx.exclusive('files.retainMany', async () => {
      const next = new Map<string, FileMeta>();
      const moves: BatchMove[] = [];
      const answers: boolean[] = [];
      for (const [i, entry] of entries.entries()) {
        const meta = next.get(entry.fileId) ?? metaOf(organizationId, entry.fileId);
        if (meta) {
          next.set(entry.fileId, { ...meta, references: meta.references + 1 });
          answers.push(true);
          continue;
        }
        if (!entry.content) {
          answers.push(false);
          continue;
        }
        let temp = staged.get(i);
        if (temp === undefined) {
          // Released meanwhile (it looked stored before the lock): staged now, in the lock; rare.
          temp = await ctx.disk.stage(contents.pathOf(organizationId, entry.fileId), copyBytes(entry.content.bytes));
          await ctx.disk.flush([temp]);
        }
        staged.delete(i);
        moves.push({ from: temp, to: contents.pathOf(organizationId, entry.fileId) });
        next.set(entry.fileId, { references: 1, mime_type: entry.content.mime_type, size: entry.content.bytes.byteLength });
        answers.push(true);
      }
      if (next.size === 0) return answers;
      const writes: BatchWrite[] = Array.from(next, ([fileId, meta]) => ({
        path: ctx.layout.ref(organizationId, fileId),
        body: refBody(organizationId, fileId, meta),
      }));
      await ctx.disk.commitBatch('files', writes, [], moves);
      for (const [fileId, meta] of next) f.setMeta(organizationId, fileId, meta);
      return answers;
    }, organizationId);
  } finally {
    await Promise.all(allStaged().map((temp) => contents.discard(temp)));
  }
}

/** Releases a batch in one journal commit (run in the write lock); the contents of files that reach zero go after it. */
async function releaseMany({ ctx, contents, metaOf, setMeta }: FileParts, organizationId: string, fileIds: readonly string[]): Promise<void> {
  const next = new Map<string, FileMeta | undefined>();
  for (const fileId of fileIds) {
    const meta = next.has(fileId) ? next.get(fileId) : metaOf(organizationId, fileId);
    if (!meta) continue;
    next.set(fileId, meta.references > 1 ? { ...meta, references: meta.references - 1 } : undefined);
  }
  if (next.size === 0) return;
  const writes: BatchWrite[] = [];
  const deletes: string[] = [];
  for (const [fileId, meta] of next) {
    const path = ctx.layout.ref(organizationId, fileId);
    if (meta) writes.push({ path, body: refBody(organizationId, fileId, meta) });
    else deletes.push(path);
  }
  await ctx.disk.commitBatch('files', writes, deletes);
  for (const [fileId, meta] of next) setMeta(organizationId, fileId, meta);
  // The bytes of released files go in the background, after the batches before them (a retain of one of them
  // waits for it): a crash first leaves unreferenced contents, which the next open removes.
  const gone = [...next].filter(([, meta]) => !meta).map(([fileId]) => contents.pathOf(organizationId, fileId));
  if (gone.length > 0) {
    ctx.disk.afterBatches(gone, async () => {
      const limit = pLimit(32);
      await Promise.all(gone.map((path) => limit(() => contents.discard(path))));
    });
  }
}

function refBody(organizationId: string, fileId: string, meta: FileMeta) {
  return { organization_id: organizationId, file_id: fileId, ...meta };
}
