import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Adapter } from 'lowdb';
import type { StoredRecordBase } from '@docevals/core';
import { writeFileDurably } from './durable-write.js';

export type CollectionName = 'evaluations' | 'iterations' | 'processors';
export const COLLECTION_NAMES: readonly CollectionName[] = ['evaluations', 'iterations', 'processors'];

/** A stored record with its compare-and-set version. */
export interface RecordEntry {
  version: number;
  value: StoredRecordBase;
}

/** What the JSON db knows of a file; its bytes live in the files folder. */
export interface FileMeta {
  references: number;
  mime_type: string;
  /** Checked on read, so a truncated content file is reported rather than served. */
  size: number;
}

/** organization id -> id -> item. Maps, so that ids such as `__proto__` or `constructor` are plain keys. */
export type ByOrganization<V> = Map<string, Map<string, V>>;

/**
 * The whole database as it sits in memory. Never changed in place: a write builds the next state (copying only
 * the path to what changed), writes it, and only then becomes the state readers see, so a read never returns
 * something that is not yet on disk.
 */
export interface LowdbState {
  evaluations: ByOrganization<RecordEntry>;
  iterations: ByOrganization<RecordEntry>;
  processors: ByOrganization<RecordEntry>;
  files: ByOrganization<FileMeta>;
}

/** Names the layout of `docevals.json`, so that a later layout can migrate it. */
export const FORMAT = 'docevals-lowdb/1';

export function emptyState(): LowdbState {
  return { evaluations: new Map(), iterations: new Map(), processors: new Map(), files: new Map() };
}

/** The next state with `item` at (organization, id), or without it when `item` is undefined. */
export function withItem<V>(outer: ByOrganization<V>, organizationId: string, id: string, item: V | undefined): ByOrganization<V> {
  const next = new Map(outer);
  const inner = new Map(outer.get(organizationId));
  if (item === undefined) inner.delete(id);
  else inner.set(id, item);
  if (inner.size === 0) next.delete(organizationId);
  else next.set(organizationId, inner);
  return next;
}

/**
 * The JSON text of each entry, by entry object. Entries are never changed in place (a write makes a new one), so
 * an entry's text stays valid for its lifetime: a write then re-serializes only what changed, and the rest of the
 * db is copied as text. The file is still rewritten whole; only the CPU spent on it no longer grows with the db.
 */
const entryText = new WeakMap<object, string>();

function textOf(entry: object): string {
  let text = entryText.get(entry);
  if (text === undefined) entryText.set(entry, (text = JSON.stringify(entry)));
  return text;
}

function byOrganizationText(byOrg: ByOrganization<object>): string {
  const orgs: string[] = [];
  for (const [org, items] of byOrg) {
    const parts: string[] = [];
    for (const [id, entry] of items) parts.push(`${JSON.stringify(id)}:${textOf(entry)}`);
    orgs.push(`${JSON.stringify(org)}:{${parts.join(',')}}`);
  }
  return `{${orgs.join(',')}}`;
}

/** The text of `docevals.json` for `state`: the same as `JSON.stringify` of its nested-object form. */
export function serializeState(state: LowdbState): string {
  return (
    `{"format":${JSON.stringify(FORMAT)}` +
    `,"evaluations":${byOrganizationText(state.evaluations)}` +
    `,"iterations":${byOrganizationText(state.iterations)}` +
    `,"processors":${byOrganizationText(state.processors)}` +
    `,"files":${byOrganizationText(state.files)}}`
  );
}

function parse(text: string, path: string): LowdbState {
  const json = JSON.parse(text) as Record<string, unknown>;
  if (json.format !== FORMAT) throw new Error(`${path} is not a docevals lowdb file (format ${JSON.stringify(json.format)}, expected "${FORMAT}").`);
  const unnest = <V>(value: unknown): ByOrganization<V> =>
    new Map(Object.entries((value ?? {}) as Record<string, Record<string, V>>).map(([org, items]) => [org, new Map(Object.entries(items))]));
  return {
    evaluations: unnest(json.evaluations),
    iterations: unnest(json.iterations),
    processors: unnest(json.processors),
    files: unnest(json.files),
  };
}

/**
 * lowdb's adapter for `docevals.json`, in place of its `JSONFile`: the same temp-file-and-rename, plus fsync of the
 * file and of the folder, so that a write lowdb reports as done survives a crash of the process or of the machine.
 */
export class DurableJsonFile implements Adapter<LowdbState> {
  readonly #path: string;
  readonly #tempPath: string;

  constructor(path: string, tempPath: string) {
    this.#path = path;
    this.#tempPath = tempPath;
  }

  async read(): Promise<LowdbState | null> {
    try {
      return parse(await readFile(this.#path, 'utf8'), this.#path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** The same as {@link read}, blocking: used once, when the storage opens. */
  readSync(): LowdbState | null {
    try {
      return parse(readFileSync(this.#path, 'utf8'), this.#path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  write(state: LowdbState): Promise<void> {
    return writeFileDurably(this.#path, this.#tempPath, serializeState(state));
  }
}
