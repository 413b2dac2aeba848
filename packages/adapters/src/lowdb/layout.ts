import { join, relative, sep } from 'node:path';
import { safeName } from './safe-name.js';

/** Names the on-disk layout in `<dir>/store.json`; `docevals-lowdb/1` was the single `docevals.json` file. */
export const FORMAT = 'docevals-lowdb/2';

export type RecordCollectionName = 'evaluations' | 'iterations' | 'processors' | 'jobs';
export type ChildCollectionName = 'documents' | 'predictions' | 'events';
export const RECORD_COLLECTIONS: readonly RecordCollectionName[] = ['evaluations', 'iterations', 'processors', 'jobs'];
export const CHILD_COLLECTIONS: readonly ChildCollectionName[] = ['documents', 'predictions', 'events'];

/**
 * Where the lowdb adapter keeps what, under its folder (ids pass through {@link safeName}; the real ids are inside
 * each file, so a hashed name loses nothing):
 *
 * | path | holds |
 * |---|---|
 * | `store.json` | `{ "format": "docevals-lowdb/2" }` |
 * | `records/<collection>/<org>/<id>.json` | `{ gen, version, value }`: an evaluation, iteration or processor |
 * | `children/<collection>/<org>/<parent>/<id>.json` | `{ gen, version, seq, value }`: a document or prediction |
 * | `refs/<org>/<file_id>.json` | `{ gen, organization_id, file_id, references, mime_type, size }` |
 * | `files/<org>/<file_id>` | the bytes of a stored file |
 * | `journal/<gen>.json` | a batch being applied: `{ gen, writes: [{ path, text }], deletes: [path] }` |
 *
 * `gen` grows with every commit; a file whose `gen` is newer than a journal's is never overwritten by its replay.
 * A file `{ gen, deleted: true }` is a tombstone: a delete made while a journal was still being applied.
 */
export class Layout {
  readonly dir: string;
  readonly marker: string;
  readonly legacy: string;
  readonly records: string;
  readonly children: string;
  readonly refs: string;
  readonly files: string;
  readonly journal: string;

  constructor(dir: string) {
    this.dir = dir;
    this.marker = join(dir, 'store.json');
    this.legacy = join(dir, 'docevals.json');
    this.records = join(dir, 'records');
    this.children = join(dir, 'children');
    this.refs = join(dir, 'refs');
    this.files = join(dir, 'files');
    this.journal = join(dir, 'journal');
  }

  record(collection: RecordCollectionName, organizationId: string, id: string): string {
    return join(this.records, collection, safeName(organizationId), `${safeName(id)}.json`);
  }

  child(collection: ChildCollectionName, organizationId: string, parentId: string, id: string): string {
    return join(this.children, collection, safeName(organizationId), safeName(parentId), `${safeName(id)}.json`);
  }

  ref(organizationId: string, fileId: string): string {
    return join(this.refs, safeName(organizationId), `${safeName(fileId)}.json`);
  }

  journalEntry(gen: number): string {
    return join(this.journal, `${String(gen).padStart(12, '0')}.json`);
  }

  /** A path inside the folder, as a journal names it (relative, with `/`). */
  toRelative(path: string): string {
    // The paths given are this layout's own (joined under `dir`): a slice, not `relative()`'s resolving of both
    // paths (a tenth of a bulk insert's main thread at 50,000 files).
    const prefix = this.dir.endsWith(sep) ? this.dir : this.dir + sep;
    const inside = path.startsWith(prefix) ? path.slice(prefix.length) : relative(this.dir, path);
    return sep === '/' ? inside : inside.split(sep).join('/');
  }

  fromRelative(path: string): string {
    if (path.split('/').includes('..')) throw new Error('a journal names a path outside the store');
    return join(this.dir, ...path.split('/'));
  }
}
