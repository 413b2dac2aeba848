import { randomUUID } from 'node:crypto';
import type { ChildCollection, ChildPageQuery, ChildPut, ChildRecordBase, ChildTotals, PutManyResult, RecordPage, Versioned } from '@docevals/core';
import type { Redis } from 'ioredis';
import { checkPutManyShape, idTaken } from '@docevals/core/storage-kit';
import type { WriteObserver } from '@docevals/core/storage-kit';
import type { ChildKind, KeyLayout } from './key-layout.js';
import type { DocevalsScripts } from './lua-scripts.js';
import type { RedisConnection } from './redis-connection.js';
import { readVersioned } from './read-records.js';
import { CHILD_INSERT_MANY } from './child-scripts.js';
import { encodedScript } from './encoded-command.js';

type Client = Redis & DocevalsScripts;

/** insertMany's script, its command written as one pre-encoded buffer (a batch's command is megabytes). */
const insertManyScript = encodedScript(CHILD_INSERT_MANY);

/** How many times deleteAll reads the order again when children come or go between its read and its script. */
const DELETE_ALL_ATTEMPTS = 20;

/** The keys of one child collection, its name and its write report. */
interface ChildKeys {
  record: (org: string, parent: string, id: string) => string;
  order: (org: string, parent: string) => string;
  totals: (org: string, parent: string) => string;
  label: string;
  report: (bytes: number) => void;
}

/**
 * Documents or predictions on Redis: each child a small hash (`v`, `json`, `w`, `t`), the parent's order a sorted
 * set (score = place), the parent's count and sums a hash that every write script updates in the same step
 * (key-layout.ts). A batch is one script: all or nothing, one round trip.
 */
export function redisChildCollection<T extends ChildRecordBase>(
  connection: RedisConnection,
  keys: KeyLayout,
  kind: ChildKind,
  label: string,
  onWrite: WriteObserver | undefined,
): ChildCollection<T> {
  const c: ChildKeys = {
    record: (org, parent, id) => keys.child(kind, org, parent, id),
    order: (org, parent) => keys.childOrder(kind, org, parent),
    totals: (org, parent) => keys.childTotals(kind, org, parent),
    label,
    report: (bytes) => onWrite?.({ collection: label, bytes }),
  };
  const { record: recordKey, order: orderKey, totals: totalsKey, report } = c;
  const fetch = (client: Client, org: string, parent: string, ids: readonly string[]) =>
    readVersioned<T>(client, ids.map((id) => recordKey(org, parent, id)));

  return {
    get(org, parent, id) {
      return connection.run(`${label}.get`, async (client) => (await fetch(client, org, parent, [id]))[0]!);
    },
    getMany(org, parent, ids) {
      return connection.run(`${label}.getMany`, (client) => fetch(client, org, parent, ids));
    },
    insertMany(records) {
      return connection.run(`${label}.insertMany`, (client) => insertMany(c, client, records));
    },
    put(record, expectedVersion) {
      return connection.run(`${label}.put`, async (client) => {
        const json = JSON.stringify(record);
        const org = record.organization_id;
        const parent = record.parent_id;
        const version = await client.docevalsChildPut(
          recordKey(org, parent, record.id),
          orderKey(org, parent),
          totalsKey(org, parent),
          record.id,
          json,
          expectedVersion === undefined ? '' : String(expectedVersion),
          randomUUID(),
          JSON.stringify(totalsPairs(record.totals)),
        );
        if (version <= 0) return null;
        report(json.length);
        return { value: JSON.parse(json) as T, version };
      });
    },
    putMany(entries) {
      return connection.run(`${label}.putMany`, (client) => putMany(c, client, entries));
    },
    delete(org, parent, id, expectedVersion) {
      return connection.run(`${label}.delete`, async (client) => {
        const expected = expectedVersion === undefined ? '' : String(expectedVersion);
        const deleted = await client.docevalsChildDelete(recordKey(org, parent, id), orderKey(org, parent), totalsKey(org, parent), id, expected);
        if (deleted === 1) report(0);
        return deleted === 1;
      });
    },
    deleteAll: (org, parent) => connection.run(`${label}.deleteAll`, (client) => deleteAll(c, client, org, parent)),
    list: (org, parent, query) => connection.run(`${label}.list`, (client) => list(c, client, org, parent, query)),
    totals: (org, parent) => connection.run(`${label}.totals`, (client) => readTotals(c, client, org, parent)),
  };
}

/** insertMany as one script: every record at version 1 at the end of the parent's order, or none (an id taken). */
async function insertMany<T extends ChildRecordBase>(c: ChildKeys, client: Client, records: readonly T[]): Promise<Array<Versioned<T>>> {
  if (records.length === 0) return [];
  checkPutManyShape(c.label, records.map((record) => ({ record })));
  const { organization_id: org, parent_id: parent } = records[0]!;
  // The batch's totals summed first, in record order with the same doubles the script added one by one before.
  const sums = new Map<string, number>();
  for (const record of records) addTotals(record.totals, sums);
  const prefix = insertManyScript.keyPrefix(client);
  let bytes = 0;
  // Keys: the order, the totals, one per record; arguments: the batch's id, its summed totals, then per child its
  // id, JSON and moving pairs, each record stringified and written at once (its string dies young).
  const outcome = Number(
    await insertManyScript.run(client, 2 + records.length, 2 + 2 * sums.size + 3 * records.length, records.length * 2_048, (w) => {
      w.bulk(prefix + c.order(org, parent)).bulk(prefix + c.totals(org, parent));
      for (const record of records) w.bulk(prefix + c.record(org, parent, record.id));
      w.bulk(randomUUID()).bulk(String(sums.size));
      for (const [key, sum] of sums) w.bulk(key).bulk(String(sum));
      for (const record of records) {
        const json = JSON.stringify(record);
        bytes += json.length;
        w.bulk(record.id).bulk(json).bulk(movingPairs(record.totals));
      }
    }),
  );
  if (outcome < 0) throw idTaken(c.label, records[-outcome - 1]!.id);
  c.report(bytes);
  // The records as given (JSON values: what was stored reads back equal), not parsed back from their JSON: an
  // import of 50,000 predictions spent a sixth of its CPU re-parsing records nobody read. The store keeps no
  // reference to them.
  return records.map((record) => ({ value: record, version: 1 }));
}

/** putMany as one script: every expected version checked, then every record written, or none. */
async function putMany<T extends ChildRecordBase>(c: ChildKeys, client: Client, entries: ReadonlyArray<ChildPut<T>>): Promise<PutManyResult<T>> {
  checkPutManyShape(c.label, entries);
  if (entries.length === 0) return { ok: true, records: [] };
  const { organization_id: org, parent_id: parent } = entries[0]!.record;
  const jsons = entries.map(({ record }) => JSON.stringify(record));
  // Keys and arguments as one array: a batch of thousands has more arguments than a call may spread.
  const keysAndArgs: string[] = [c.order(org, parent), c.totals(org, parent)];
  for (const { record } of entries) keysAndArgs.push(c.record(org, parent, record.id));
  keysAndArgs.push(randomUUID());
  entries.forEach(({ record, expectedVersion }, i) => {
    // The totals as one JSON argument (the script adds them in their order, so sums stay exact).
    keysAndArgs.push(record.id, jsons[i]!, expectedVersion === undefined ? '' : String(expectedVersion), JSON.stringify(totalsPairs(record.totals)));
  });
  const [written, ...rest] = await client.docevalsChildPutMany(2 + entries.length, keysAndArgs);
  if (written !== 1) return { ok: false, conflicts: rest.map((i) => Number(i) - 1) };
  c.report(jsons.reduce((n, json) => n + json.length, 0));
  return { ok: true, records: jsons.map((json, i) => ({ value: JSON.parse(json) as T, version: Number(rest[i]) })) };
}

/** deleteAll: the parent's order read, then every child of it removed in one script (read again if it moved). */
async function deleteAll(c: ChildKeys, client: Client, org: string, parent: string): Promise<number> {
  for (let attempt = 0; attempt < DELETE_ALL_ATTEMPTS; attempt++) {
    const ids = await client.zrange(c.order(org, parent), '0', '-1');
    const recordKeys = ids.map((id) => c.record(org, parent, id));
    const count = await client.docevalsChildDeleteAll(2 + recordKeys.length, [c.order(org, parent), c.totals(org, parent), ...recordKeys, ...ids]);
    if (count >= 0) {
      c.report(0);
      return count;
    }
  }
  throw new Error(`children kept coming while deleting every child of a parent (${DELETE_ALL_ATTEMPTS} attempts)`);
}

/** A page in the parent's order: the ids from the sorted set, then the children. */
async function list<T extends ChildRecordBase>(c: ChildKeys, client: Client, org: string, parent: string, query: ChildPageQuery): Promise<RecordPage<T> | null> {
  const limit = Math.max(0, Math.floor(query.limit));
  const reply = await client.docevalsRange(c.order(org, parent), 'asc', query.after ?? '', '', 'after', limit + 1);
  if (reply === null) return null;
  const ids = reply.slice(1).map(String);
  const records = await readVersioned<T>(client, ids.slice(0, limit).map((id) => c.record(org, parent, id)));
  // A child deleted between the two reads is left out of the page.
  const items = records.filter((r): r is Versioned<T> => r !== null).map((r) => r.value);
  return { items, has_more: ids.length > limit };
}

async function readTotals(c: ChildKeys, client: Client, org: string, parent: string): Promise<ChildTotals> {
  const hash = await client.hgetall(c.totals(org, parent));
  const sums: Record<string, number> = {};
  for (const [field, value] of Object.entries(hash)) if (field.startsWith('s:')) sums[field.slice(2)] = Number(value);
  const count = Number(hash.count ?? 0);
  return count > 0 ? { count, sums } : { count: 0, sums: {} };
}

/** The finite numbers of a child's totals as key/value strings (`String` keeps every digit of a double). */
function totalsPairs(totals: Record<string, number> | undefined): string[] {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(totals ?? {})) {
    if (typeof value === 'number' && Number.isFinite(value)) pairs.push(key, String(value));
  }
  return pairs;
}

/** Adds a child's finite totals into `sums`. */
function addTotals(totals: Record<string, number> | undefined, sums: Map<string, number>): void {
  const own = totals ?? {};
  for (const key in own) {
    const value = own[key];
    if (typeof value === 'number' && Number.isFinite(value)) sums.set(key, (sums.get(key) ?? 0) + value);
  }
}

/**
 * A child's own totals pairs as the script's JSON argument (what a later put or delete subtracts). Its zeros are left
 * out: they move no sum, ten of a prediction's fourteen totals are 0 in a typical import, and these pairs were a
 * sixth of a build's bytes to Redis. Written as one string (no pair array and no stringify of it per child); the
 * values as {@link totalsPairs} writes them.
 */
function movingPairs(totals: Record<string, number> | undefined): string {
  let json = '';
  const own = totals ?? {};
  for (const key in own) {
    const value = own[key];
    if (typeof value === 'number' && Number.isFinite(value) && value !== 0) json += `${json ? ',' : ''}${JSON.stringify(key)},"${String(value)}"`;
  }
  return `[${json}]`;
}
