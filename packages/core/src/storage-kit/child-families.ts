import type { ChildPut, ChildRecordBase, ChildTotals, RecordPage } from '../storage.js';
import { noTotals, RunningTotals } from './child-totals.js';
import { idRepeated, idTaken, mixedBatch } from './errors.js';

/** A stored child with its compare-and-set version and its place in the parent's order. */
export interface ChildEntry<T> {
  value: T;
  version: number;
  /** Grows with every child the parent gets; a child keeps it when replaced. Order = ascending `seq`. */
  seq: number;
}

/** The children of one parent: a Map keeps insertion order, and `set` on a present key keeps its place. */
export interface Family<T> {
  children: Map<string, ChildEntry<T>>;
  totals: RunningTotals;
  nextSeq: number;
}

/**
 * The in-process index of a child collection, shared by the memory and lowdb adapters so that they order, page
 * and total alike: organization -> parent -> family. Changes are synchronous; the caller makes them atomic with
 * its medium (memory: nothing to wait for; lowdb: applied only once the write is on disk).
 */
export class ChildFamilies<T extends ChildRecordBase> {
  readonly #byOrganization = new Map<string, Map<string, Family<T>>>();
  readonly #collection: string;

  constructor(collection: string) {
    this.#collection = collection;
  }

  family(organizationId: string, parentId: string): Family<T> | undefined {
    return this.#byOrganization.get(organizationId)?.get(parentId);
  }

  entry(organizationId: string, parentId: string, id: string): ChildEntry<T> | undefined {
    return this.family(organizationId, parentId)?.children.get(id);
  }

  /** Every family, for sweeps: [organization, parent, family]. */
  *families(): Generator<[string, string, Family<T>]> {
    for (const [org, parents] of this.#byOrganization) for (const [parent, family] of parents) yield [org, parent, family];
  }

  /**
   * Checks a batch before anything is written: one organization and one parent, no id twice, none the parent holds.
   * Returns the next `seq` of the parent.
   */
  checkInsertMany(records: readonly T[]): number {
    const { organization_id: organizationId, parent_id: parentId } = records[0]!;
    const family = this.family(organizationId, parentId);
    const seen = new Set<string>();
    for (const record of records) {
      if (record.organization_id !== organizationId || record.parent_id !== parentId) throw mixedBatch(this.#collection);
      if (seen.has(record.id)) throw idRepeated(this.#collection, record.id);
      if (family?.children.has(record.id)) throw idTaken(this.#collection, record.id);
      seen.add(record.id);
    }
    return family?.nextSeq ?? 1;
  }

  /**
   * Checks a `putMany` batch against the stored versions, before anything is written: the shape (see
   * {@link checkPutManyShape}), then each entry's version. Returns the indexes of the entries whose version does not
   * match (empty: the batch may be written, in order, each new id taking the next `seq`).
   */
  putManyConflicts(entries: ReadonlyArray<ChildPut<T>>): number[] {
    checkPutManyShape(this.#collection, entries);
    const conflicts: number[] = [];
    entries.forEach(({ record, expectedVersion }, i) => {
      const current = this.entry(record.organization_id, record.parent_id, record.id);
      if (!ChildFamilies.mayPut(current, expectedVersion)) conflicts.push(i);
    });
    return conflicts;
  }

  /**
   * The entries a checked `putMany` batch stores (version one more than the stored one, `seq` kept or the next ones
   * in order), values passed through `copy`; the caller stores them with {@link set} once its medium has them.
   */
  putManyEntries(entries: ReadonlyArray<ChildPut<T>>, copy: (value: T) => T): ChildEntry<T>[] {
    if (entries.length === 0) return [];
    const { organization_id: organizationId, parent_id: parentId } = entries[0]!.record;
    let nextSeq = this.nextSeq(organizationId, parentId);
    return entries.map(({ record }) => {
      const current = this.entry(organizationId, parentId, record.id);
      return { value: copy(record), version: (current?.version ?? 0) + 1, seq: current?.seq ?? nextSeq++ };
    });
  }

  /**
   * Whether a `put` with `expectedVersion` may write over `current` (compare-and-set: a number names the stored
   * version, 0 means "absent", undefined means "whatever is there").
   */
  static mayPut(current: { version: number } | undefined, expectedVersion: number | undefined): boolean {
    if (expectedVersion === undefined) return true;
    return expectedVersion === 0 ? current === undefined : current?.version === expectedVersion;
  }

  /** The `seq` a new child of the parent gets. */
  nextSeq(organizationId: string, parentId: string): number {
    return this.family(organizationId, parentId)?.nextSeq ?? 1;
  }

  /** Stores `entry` (new or replacing), moving the totals by the difference. */
  set(entry: ChildEntry<T>): void {
    const { organization_id: organizationId, parent_id: parentId, id } = entry.value;
    let parents = this.#byOrganization.get(organizationId);
    if (!parents) this.#byOrganization.set(organizationId, (parents = new Map<string, Family<T>>()));
    let family = parents.get(parentId);
    if (!family) parents.set(parentId, (family = { children: new Map(), totals: new RunningTotals(), nextSeq: 1 }));
    const current = family.children.get(id);
    family.children.set(id, entry);
    family.totals.apply(current?.value, entry.value);
    if (entry.seq >= family.nextSeq) family.nextSeq = entry.seq + 1;
  }

  /** Removes one child; returns what was there. */
  remove(organizationId: string, parentId: string, id: string): ChildEntry<T> | undefined {
    const family = this.family(organizationId, parentId);
    const current = family?.children.get(id);
    if (!family || !current) return undefined;
    family.children.delete(id);
    family.totals.apply(current.value, undefined);
    this.#dropIfEmpty(organizationId, parentId, family);
    return current;
  }

  /** Removes every child of the parent; returns what was there, in order. */
  removeAll(organizationId: string, parentId: string): ChildEntry<T>[] {
    const family = this.family(organizationId, parentId);
    if (!family) return [];
    const removed = [...family.children.values()];
    family.children.clear();
    this.#dropIfEmpty(organizationId, parentId, family);
    return removed;
  }

  /**
   * A page in the parent's order, values passed through `copy`; null when `after` names no child. A Map cannot
   * seek: the keys are walked to the cursor (no copy), and only the page is copied.
   */
  page(organizationId: string, parentId: string, limit: number, after: string | undefined, copy: (value: T) => T): RecordPage<T> | null {
    const children = this.family(organizationId, parentId)?.children;
    if (after !== undefined && !children?.has(after)) return null;
    const max = Math.max(0, Math.floor(limit));
    const items: T[] = [];
    if (!children) return { items, has_more: false };
    let started = after === undefined;
    for (const [id, entry] of children) {
      if (!started) {
        started = id === after;
        continue;
      }
      if (items.length === max) return { items, has_more: true };
      items.push(copy(entry.value));
    }
    return { items, has_more: false };
  }

  totals(organizationId: string, parentId: string): ChildTotals {
    return this.family(organizationId, parentId)?.totals.snapshot() ?? noTotals();
  }

  #dropIfEmpty(organizationId: string, parentId: string, family: Family<T>): void {
    if (family.children.size > 0) return;
    const parents = this.#byOrganization.get(organizationId);
    parents?.delete(parentId);
    if (parents?.size === 0) this.#byOrganization.delete(organizationId);
  }
}

/**
 * The shape every adapter's `putMany` refuses before looking at versions: records of more than one organization or
 * parent (a caller bug, `internal_error`), or an id twice (`conflict`).
 */
export function checkPutManyShape<T extends ChildRecordBase>(collection: string, entries: ReadonlyArray<ChildPut<T>>): void {
  if (entries.length === 0) return;
  const { organization_id: organizationId, parent_id: parentId } = entries[0]!.record;
  const seen = new Set<string>();
  for (const { record } of entries) {
    if (record.organization_id !== organizationId || record.parent_id !== parentId) throw mixedBatch(collection);
    if (seen.has(record.id)) throw idRepeated(collection, record.id);
    seen.add(record.id);
  }
}
