import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ChildRecordBase } from '@docevals/core';
import type { ChildFamilies } from '@docevals/core/storage-kit';
import { CHILD_COLLECTIONS, type ChildCollectionName, FORMAT, type Layout, RECORD_COLLECTIONS } from './layout.js';
import { flushSync, type DiskLog } from './record-disk.js';
import { parseJournal } from './journal.js';
import { migrateLegacyFile } from './migrate-v1.js';
import { emptyState, type FileMeta, getItem, type LowdbState, setItem } from './state.js';
import { PRIVATE_FILE, PRIVATE_FOLDER } from './file-modes.js';

/** What an open found: the state, the highest `gen` on disk, and what the sweep reclaimed. */
export interface LoadedStore {
  state: LowdbState;
  gen: number;
  swept: SweepReport;
}

/** What the open-time sweep removed (docs/storage.md, "Orphans"). */
export interface SweepReport {
  tempFiles: number;
  tombstones: number;
  journalsReplayed: number;
  /** Documents whose evaluation is gone, predictions whose iteration is gone. */
  orphanChildren: number;
  /** Iterations no evaluation lists (a crash between the insert and the evaluation's update). */
  orphanIterations: number;
  /** File reference counts corrected to the number of documents holding them (files nobody holds: removed). */
  fileReferencesFixed: number;
}

interface DiskFile {
  gen: number;
  deleted?: boolean;
  version?: number;
  seq?: number;
  value?: unknown;
}

/** A file of `refs/`: a DiskFile whose fields are the reference's (see lowdb-file-store.ts `refBody`). */
type RefFile = DiskFile & FileMeta & { organization_id: string; file_id: string };

/**
 * Opens the folder's records, blocking (once, while the folder lock is held, so no writer is mid-way):
 * 1. a store of the previous layout (`docevals.json`) is converted first (see migrate-v1.ts);
 * 2. journals left by a process that stopped mid-batch are replayed (a file with a newer `gen` is kept) and removed;
 * 3. every record file is read into memory; temp files and tombstones are removed;
 * 4. with `sweepOrphans`, what a crash can leave between two writes of one service operation is reclaimed:
 *    documents and predictions whose parent is gone, iterations no evaluation lists, file reference counts that do
 *    not match the documents holding the file.
 */
export function loadStore(layout: Layout, sweepOrphans: boolean, log: DiskLog): LoadedStore {
  const swept: SweepReport = { tempFiles: 0, tombstones: 0, journalsReplayed: 0, orphanChildren: 0, orphanIterations: 0, fileReferencesFixed: 0 };
  mkdirSync(layout.dir, { recursive: true, mode: PRIVATE_FOLDER });
  if (!existsSync(layout.marker)) {
    if (existsSync(layout.legacy)) migrateLegacyFile(layout, log);
    writeMarker(layout);
  } else {
    const marker = JSON.parse(readFileSync(layout.marker, 'utf8')) as { format?: unknown };
    if (marker.format !== FORMAT) throw new Error(`the store folder has format ${JSON.stringify(marker.format)}, expected "${FORMAT}"`);
  }

  let gen = replayJournals(layout, swept);
  const state = emptyState();
  const remove = (path: string) => rmSync(path, { force: true });

  const visit = (path: string, place: (file: DiskFile) => void) => {
    const name = path.slice(dirname(path).length + 1);
    if (name.startsWith('.') || name.endsWith('.tmp')) {
      // A write killed midway (`.<name>.<pid>.<n>.tmp`, or the `.replay.tmp` / `.sweep.tmp` / `.migrate.tmp` of an open).
      remove(path);
      swept.tempFiles++;
      return;
    }
    let file: DiskFile;
    try {
      file = JSON.parse(readFileSync(path, 'utf8')) as DiskFile;
    } catch (error) {
      throw Object.assign(new Error(`a record file of the store is damaged (${path})`), { cause: error });
    }
    if (file.gen > gen) gen = file.gen;
    if (file.deleted) {
      remove(path);
      swept.tombstones++;
      return;
    }
    place(file);
  };

  for (const collection of RECORD_COLLECTIONS) {
    const records = state.records[collection];
    for (const path of filesUnder(join(layout.records, collection), 1)) {
      visit(path, (file) => {
        const value = file.value as { organization_id: string; id: string };
        setItem(records, value.organization_id, value.id, { version: file.version!, value: file.value as never });
      });
    }
  }
  for (const collection of CHILD_COLLECTIONS) {
    const found: Array<{ version: number; seq: number; value: ChildRecordBase }> = [];
    for (const path of filesUnder(join(layout.children, collection), 2)) {
      visit(path, (file) => found.push({ version: file.version!, seq: file.seq!, value: file.value as ChildRecordBase }));
    }
    // Insertion order is `seq` order: set them in that order so each parent's Map iterates the same way.
    found.sort((a, b) => a.seq - b.seq);
    const families = state[collection] as ChildFamilies<ChildRecordBase>;
    for (const entry of found) families.set(entry);
  }
  for (const path of filesUnder(layout.refs, 1)) {
    visit(path, (file) => {
      const meta = file as RefFile;
      setItem(state.refs, meta.organization_id, meta.file_id, { references: meta.references, mime_type: meta.mime_type, size: meta.size });
    });
  }

  if (sweepOrphans) gen = sweep(layout, state, gen, swept, log);
  return { state, gen, swept };
}

function writeMarker(layout: Layout): void {
  const temp = `${layout.marker}.tmp`;
  writeFileSync(temp, JSON.stringify({ format: FORMAT }), { mode: PRIVATE_FILE });
  flushSync(layout.dir, [temp]);
  renameSync(temp, layout.marker);
  flushSync(layout.dir, [layout.dir]);
}

/** Redoes every journal in `gen` order, flushes what it wrote, removes the journals. Returns the highest gen. */
function replayJournals(layout: Layout, swept: SweepReport): number {
  let gen = 0;
  if (!existsSync(layout.journal)) return gen;
  const names = readdirSync(layout.journal).sort();
  const touched: string[] = [];
  const journals: string[] = [];
  const genOf = (path: string): number => {
    try {
      return (JSON.parse(readFileSync(path, 'utf8')) as DiskFile).gen;
    } catch {
      return -1; // absent (or unreadable: the journal holds the committed text)
    }
  };
  for (const name of names) {
    const path = join(layout.journal, name);
    if (!name.endsWith('.json') || name.startsWith('.')) {
      rmSync(path, { force: true });
      swept.tempFiles++;
      continue;
    }
    const entry = parseJournal(readFileSync(path, 'utf8'));
    gen = Math.max(gen, entry.gen);
    for (const move of entry.moves) {
      const from = layout.fromRelative(move.from);
      if (existsSync(from)) {
        mkdirSync(dirname(layout.fromRelative(move.to)), { recursive: true, mode: PRIVATE_FOLDER });
        renameSync(from, layout.fromRelative(move.to));
        touched.push(layout.fromRelative(move.to));
      }
    }
    const put = (target: string, text: string) => {
      if (genOf(target) >= entry.gen) return;
      mkdirSync(dirname(target), { recursive: true, mode: PRIVATE_FOLDER });
      writeFileSync(`${target}.replay.tmp`, text, { mode: PRIVATE_FILE });
      renameSync(`${target}.replay.tmp`, target);
      touched.push(target);
    };
    for (const write of entry.writes) put(layout.fromRelative(write.path), write.text);
    const tombstone = JSON.stringify({ gen: entry.gen, deleted: true });
    for (const relative of entry.deletes) put(layout.fromRelative(relative), tombstone);
    journals.push(path);
    swept.journalsReplayed++;
  }
  flushSync(layout.dir, touched);
  for (const path of journals) rmSync(path, { force: true });
  return gen;
}

/** Every file `depth` folders below `root` (root/a/b/file for depth 2), or none when root is missing. */
function* filesUnder(root: string, depth: number): Generator<string> {
  if (!existsSync(root)) return;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (depth === 0) {
      if (entry.isFile()) yield path;
    } else if (entry.isDirectory()) {
      yield* filesUnder(path, depth - 1);
    } else if (entry.name.startsWith('.')) {
      rmSync(path, { force: true }); // a temp file left where only folders belong
    }
  }
}

function sweep(layout: Layout, state: LowdbState, gen: number, swept: SweepReport, log: DiskLog): number {
  const removed: string[] = [];
  const drop = (path: string) => {
    rmSync(path, { force: true });
    removed.push(dirname(path));
  };
  const evaluations = state.records.evaluations;
  const iterations = state.records.iterations;

  for (const [org, items] of [...iterations]) {
    for (const [id, entry] of [...items]) {
      const evaluationId = (entry.value as { evaluation_id?: string }).evaluation_id ?? '';
      const parent = getItem(evaluations, org, evaluationId)?.value as { iteration_ids?: string[] } | undefined;
      if (parent?.iteration_ids?.includes(id)) continue;
      setItem(iterations, org, id, undefined);
      drop(layout.record('iterations', org, id));
      swept.orphanIterations++;
    }
  }
  const sweepChildren = (collection: ChildCollectionName, families: ChildFamilies<ChildRecordBase>, parents: typeof evaluations) => {
    for (const [org, parent] of [...families.families()].map(([o, p]) => [o, p] as const)) {
      if (getItem(parents, org, parent)) continue;
      for (const entry of families.removeAll(org, parent)) {
        drop(layout.child(collection, org, parent, entry.value.id));
        swept.orphanChildren++;
      }
    }
  };
  sweepChildren('documents', state.documents, evaluations);
  sweepChildren('predictions', state.predictions, iterations);
  sweepChildren('events', state.events as ChildFamilies<ChildRecordBase>, iterations);

  // Documents are what hold file references (one each): a count above that is a reference a crash left behind.
  const held = new Map<string, Map<string, number>>();
  for (const [org, , family] of state.documents.families()) {
    let counts = held.get(org);
    if (!counts) held.set(org, (counts = new Map<string, number>()));
    for (const id of family.children.keys()) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  for (const [org, metas] of [...state.refs]) {
    for (const [fileId, meta] of [...metas]) {
      const holders = held.get(org)?.get(fileId) ?? 0;
      if (holders === meta.references) continue;
      swept.fileReferencesFixed++;
      const path = layout.ref(org, fileId);
      if (holders === 0) {
        setItem(state.refs, org, fileId, undefined);
        drop(path);
        continue;
      }
      const next = { ...meta, references: holders };
      setItem(state.refs, org, fileId, next);
      writeFileSync(`${path}.sweep.tmp`, JSON.stringify({ gen: ++gen, organization_id: org, file_id: fileId, ...next }), { mode: PRIVATE_FILE });
      renameSync(`${path}.sweep.tmp`, path);
      removed.push(path);
    }
  }
  if (removed.length > 0) {
    flushSync(layout.dir, [...new Set(removed)]);
    log(`lowdb: the open-time sweep reclaimed ${swept.orphanChildren} children, ${swept.orphanIterations} iterations, ${swept.fileReferencesFixed} file references`, null);
  }
  return gen;
}
