import type { ChildCollection, ChildRecordBase, JobCollection, JobRecord, RecordCollection, StoredRecordBase, Versioned } from '@docevals/core';
import { ChildFamilies, type ChildEntry } from '@docevals/core/storage-kit';
import { idTaken } from '@docevals/core/storage-kit';
import { pageRecords } from '@docevals/core/storage-kit';
import type { ChildCollectionName, Layout, RecordCollectionName } from './layout.js';
import type { RecordDisk } from './record-disk.js';
import { getItem, type LowdbState, type RecordEntry, setItem } from './state.js';

/** What the collections of one lowdb store share: its layout, writer, in-memory state and the two guards. */
export interface LowdbContext {
  layout: Layout;
  disk: RecordDisk;
  state: LowdbState;
  /**
   * Runs a write under the store's write lock, after the open check, wrapping failures as storage_error: alone among
   * the writes of `organizationId` (the organization the record is stored under), beside other organizations' writes.
   * Required: every write of one record must take the same key (a job's is the jobs scope, which every job write
   * shares), or two writes of it could overlap.
   */
  exclusive<R>(operation: string, task: () => Promise<R>, organizationId: string): Promise<R>;
  /** Runs a read after the open check, wrapping failures as storage_error. */
  read<R>(operation: string, task: () => R | Promise<R>): Promise<R>;
}

/**
 * Copies a record through JSON, before the write lock comes round (the caller may change its object meanwhile):
 * what reads return now is then exactly what they return after a restart. With its JSON text, which its file gets as
 * is (`writeOne`'s and a batch's `valueText`): each record is serialized once.
 */
function jsonCopy<T>(record: T): { value: T; text: string } {
  const text = JSON.stringify(record);
  return { value: JSON.parse(text) as T, text };
}

/** {@link jsonCopy} of each record, the copies and their texts apart (a batch's entries and its files). */
function jsonCopies<T>(records: readonly T[]): { values: T[]; texts: string[] } {
  const copies = records.map((record) => jsonCopy(record));
  return { values: copies.map((c) => c.value), texts: copies.map((c) => c.text) };
}

const out = <T>(entry: { value: unknown; version: number }): Versioned<T> => ({ value: structuredClone(entry.value) as T, version: entry.version });

/** An evaluation, iteration or processor collection: one file per record. */
export function lowdbRecordCollection<T extends StoredRecordBase>(ctx: LowdbContext, name: RecordCollectionName): RecordCollection<T> {
  const items = () => ctx.state.records[name];
  const pathOf = (organizationId: string, id: string) => ctx.layout.record(name, organizationId, id);

  return {
    get: (organizationId, id) =>
      ctx.read(`${name}.get`, () => {
        const entry = getItem(items(), organizationId, id);
        return entry ? out<T>(entry) : null;
      }),
    getMany: (organizationId, ids) =>
      ctx.read(`${name}.getMany`, () =>
        ids.map((id) => {
          const entry = getItem(items(), organizationId, id);
          return entry ? out<T>(entry) : null;
        }),
      ),
    insert(record) {
      const copy = jsonCopy(record);
      return ctx.exclusive(`${name}.insert`, () => insertEntry<T>(ctx, name, copy), copy.value.organization_id);
    },
    replace(record, expectedVersion) {
      const { value, text } = jsonCopy(record);
      return ctx.exclusive(`${name}.replace`, async () => {
        const current = getItem(items(), value.organization_id, value.id);
        if (!current || current.version !== expectedVersion) return null;
        const entry: RecordEntry = { version: current.version + 1, value };
        await ctx.disk.writeOne(name, pathOf(value.organization_id, value.id), { version: entry.version }, text);
        setItem(items(), value.organization_id, value.id, entry);
        return out<T>(entry);
      }, value.organization_id);
    },
    delete: (organizationId, id, expectedVersion) =>
      ctx.exclusive(`${name}.delete`, async () => {
        const current = getItem(items(), organizationId, id);
        if (!current) return false;
        if (expectedVersion !== undefined && current.version !== expectedVersion) return false;
        await ctx.disk.deleteOne(name, pathOf(organizationId, id));
        setItem(items(), organizationId, id, undefined);
        return true;
      }, organizationId),
    list: (organizationId, query) =>
      ctx.read(`${name}.list`, () => {
        const entries = items().get(organizationId);
        const values = entries ? Array.from(entries.values(), (e) => e.value as T) : [];
        const page = pageRecords(values, query, (id) => entries?.get(id)?.value as T | undefined);
        return page && { items: page.items.map((r) => structuredClone(r)), has_more: page.has_more };
      }),
  };
}

/** Writes a new record; the caller holds the write lock. */
async function insertEntry<T>(ctx: LowdbContext, name: RecordCollectionName, { value, text }: { value: StoredRecordBase; text: string }): Promise<Versioned<T>> {
  const items = ctx.state.records[name];
  if (getItem(items, value.organization_id, value.id)) throw idTaken(name, value.id);
  const entry: RecordEntry = { version: 1, value };
  await ctx.disk.writeOne(name, ctx.layout.record(name, value.organization_id, value.id), { version: 1 }, text);
  setItem(items, value.organization_id, value.id, entry);
  return out<T>(entry);
}

/** The jobs: the capped insert counts and writes under the store's write lock, so no other write comes between. */
export function lowdbJobCollection(ctx: LowdbContext): JobCollection {
  return {
    ...lowdbRecordCollection<JobRecord>(ctx, 'jobs'),
    insertWithinCap(record, cap) {
      const copy = jsonCopy(record);
      const { value } = copy;
      return ctx.exclusive('jobs.insertWithinCap', async () => {
        const organization = ctx.state.records.jobs.get(value.organization_id);
        // A taken id is a conflict whatever the count (as on every adapter): the insert says so.
        if (organization?.has(value.id)) return insertEntry<JobRecord>(ctx, 'jobs', copy);
        let count = 0;
        for (const entry of organization?.values() ?? []) {
          if ((entry.value as JobRecord).iteration_organization_id === value.iteration_organization_id) count++;
        }
        return count < cap ? insertEntry<JobRecord>(ctx, 'jobs', copy) : null;
      }, value.organization_id);
    },
  };
}

/**
 * Documents or predictions: one file per child (with its `seq`), a batch as one journal commit. `families` is the
 * collection's part of `ctx.state` (`ctx.state.documents` for `documents`).
 */
export function lowdbChildCollection<T extends ChildRecordBase>(
  ctx: LowdbContext,
  name: ChildCollectionName,
  families: ChildFamilies<T>,
): ChildCollection<T> {
  const pathOf = (organizationId: string, parentId: string, id: string) => ctx.layout.child(name, organizationId, parentId, id);
  const writeEntries = (entries: Array<ChildEntry<T>>, texts: readonly string[]) => writeChildren(ctx, name, families, entries, texts);

  return {
    get: (organizationId, parentId, id) =>
      ctx.read(`${name}.get`, () => {
        const entry = families.entry(organizationId, parentId, id);
        return entry ? out<T>(entry) : null;
      }),
    getMany: (organizationId, parentId, ids) =>
      ctx.read(`${name}.getMany`, () =>
        ids.map((id) => {
          const entry = families.entry(organizationId, parentId, id);
          return entry ? out<T>(entry) : null;
        }),
      ),
    insertMany(records) {
      const { values, texts } = jsonCopies(records);
      return ctx.exclusive(`${name}.insertMany`, async () => {
        if (values.length === 0) return [];
        const firstSeq = families.checkInsertMany(values);
        const entries = values.map((value, i): ChildEntry<T> => ({ value, version: 1, seq: firstSeq + i }));
        await writeEntries(entries, texts);
        // The records as given, as the Redis and PostgreSQL adapters answer (JSON values: what is stored reads back
        // equal), not a clone of each copy stored: an import of 50,000 predictions cloned every one for nobody.
        return records.map((record) => ({ value: record, version: 1 }));
      }, values[0]?.organization_id ?? '');
    },
    put(record, expectedVersion) {
      const { value, text } = jsonCopy(record);
      return ctx.exclusive(`${name}.put`, async () => {
        const current = families.entry(value.organization_id, value.parent_id, value.id);
        if (!ChildFamilies.mayPut(current, expectedVersion)) return null;
        const entry: ChildEntry<T> = {
          value,
          version: (current?.version ?? 0) + 1,
          seq: current?.seq ?? families.nextSeq(value.organization_id, value.parent_id),
        };
        await ctx.disk.writeOne(name, pathOf(value.organization_id, value.parent_id, value.id), childHead(entry), text);
        families.set(entry);
        return out<T>(entry);
      }, value.organization_id);
    },
    putMany(batch) {
      const { values, texts } = jsonCopies(batch.map((entry) => entry.record));
      const copies = batch.map((entry, i) => ({ ...entry, record: values[i]! }));
      return ctx.exclusive(`${name}.putMany`, async () => {
        const conflicts = families.putManyConflicts(copies);
        if (conflicts.length > 0) return { ok: false as const, conflicts };
        if (copies.length === 0) return { ok: true as const, records: [] };
        const entries = families.putManyEntries(copies, (value) => value);
        await writeEntries(entries, texts);
        return { ok: true as const, records: entries.map((e) => out<T>(e)) };
      }, copies[0]?.record.organization_id ?? '');
    },
    delete: (organizationId, parentId, id, expectedVersion) =>
      ctx.exclusive(`${name}.delete`, async () => {
        const current = families.entry(organizationId, parentId, id);
        if (!current) return false;
        if (expectedVersion !== undefined && current.version !== expectedVersion) return false;
        await ctx.disk.deleteOne(name, pathOf(organizationId, parentId, id));
        families.remove(organizationId, parentId, id);
        return true;
      }, organizationId),
    deleteAll: (organizationId, parentId) =>
      ctx.exclusive(`${name}.deleteAll`, async () => {
        const children = families.family(organizationId, parentId)?.children;
        if (!children || children.size === 0) return 0;
        const paths = Array.from(children.keys(), (id) => pathOf(organizationId, parentId, id));
        await ctx.disk.commitBatch(name, [], paths);
        return families.removeAll(organizationId, parentId).length;
      }, organizationId),
    list: (organizationId, parentId, query) =>
      ctx.read(`${name}.list`, () => families.page(organizationId, parentId, query.limit, query.after, (v) => structuredClone(v))),
    totals: (organizationId, parentId) => ctx.read(`${name}.totals`, () => families.totals(organizationId, parentId)),
  };
}

/** A child's file before its record (`value`, written from its text): its version and its place in the parent's order. */
function childHead<T>(entry: ChildEntry<T>) {
  return { version: entry.version, seq: entry.seq };
}

/**
 * Writes new or changed children: one journal commit for a batch (one fsync) whatever its size, a single one as a
 * plain put. `texts`: each entry's value as JSON (in the entries' order), written as is.
 */
async function writeChildren<T extends ChildRecordBase>(
  ctx: LowdbContext,
  name: ChildCollectionName,
  families: ChildFamilies<T>,
  entries: Array<ChildEntry<T>>,
  texts: readonly string[],
): Promise<void> {
  const paths = entries.map((e) => ctx.layout.child(name, e.value.organization_id, e.value.parent_id, e.value.id));
  if (entries.length === 1) await ctx.disk.writeOne(name, paths[0]!, childHead(entries[0]!), texts[0]);
  else await ctx.disk.commitBatch(name, entries.map((e, i) => ({ path: paths[i]!, body: childHead(e), valueText: texts[i]! })), []);
  for (const entry of entries) families.set(entry);
}
