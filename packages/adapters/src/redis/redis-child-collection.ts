import { randomUUID } from 'node:crypto';
import type { ChildCollection, ChildRecordBase, ChildTotals, Versioned } from '@docevals/core';
import type { Redis } from 'ioredis';
import { checkPutManyShape, idRepeated, idTaken, mixedBatch } from '@docevals/core/storage-kit';
import type { WriteObserver } from '@docevals/core/storage-kit';
import type { ChildKind, KeyLayout } from './key-layout.js';
import type { DocevalsScripts } from './lua-scripts.js';
import type { RedisConnection } from './redis-connection.js';

type Client = Redis & DocevalsScripts;

/** How many times deleteAll reads the order again when children come or go between its read and its script. */
const DELETE_ALL_ATTEMPTS = 20;

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
  const recordKey = (org: string, parent: string, id: string) => keys.child(kind, org, parent, id);
  const orderKey = (org: string, parent: string) => keys.childOrder(kind, org, parent);
  const totalsKey = (org: string, parent: string) => keys.childTotals(kind, org, parent);
  const report = (bytes: number) => onWrite?.({ collection: label, bytes });

  async function fetch(client: Client, org: string, parent: string, ids: readonly string[]): Promise<Array<Versioned<T> | null>> {
    if (ids.length === 0) return [];
    const pipeline = client.pipeline();
    for (const id of ids) pipeline.hmget(recordKey(org, parent, id), 'v', 'json');
    const replies = await execPipeline<Array<string | null>>(pipeline);
    return replies.map(([version, json]) => (version === null || json === null ? null : { value: JSON.parse(json) as T, version: Number(version) }));
  }

  return {
    get(org, parent, id) {
      return connection.run(`${label}.get`, async (client) => (await fetch(client, org, parent, [id]))[0]!);
    },
    getMany(org, parent, ids) {
      return connection.run(`${label}.getMany`, (client) => fetch(client, org, parent, ids));
    },
    insertMany(records) {
      return connection.run(`${label}.insertMany`, async (client) => {
        if (records.length === 0) return [];
        const { organization_id: org, parent_id: parent } = records[0]!;
        const seen = new Set<string>();
        for (const record of records) {
          if (record.organization_id !== org || record.parent_id !== parent) throw mixedBatch(label);
          if (seen.has(record.id)) throw idRepeated(label, record.id);
          seen.add(record.id);
        }
        const jsons = records.map((record) => JSON.stringify(record));
        const args: string[] = [randomUUID()];
        records.forEach((record, i) => {
          const pairs = totalsPairs(record.totals);
          args.push(record.id, jsons[i]!, String(pairs.length / 2), ...pairs);
        });
        const recordKeys = records.map((r) => recordKey(org, parent, r.id));
        const outcome = await client.docevalsChildInsertMany(2 + recordKeys.length, [orderKey(org, parent), totalsKey(org, parent), ...recordKeys, ...args]);
        if (outcome < 0) throw idTaken(label, records[-outcome - 1]!.id);
        report(jsons.reduce((n, json) => n + json.length, 0));
        // The records as given (JSON values: what was stored reads back equal), not parsed back from their JSON: an
        // import of 50,000 predictions spent a sixth of its CPU re-parsing records nobody read. The store keeps no
        // reference to them.
        return records.map((record) => ({ value: record, version: 1 }));
      });
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
          ...totalsPairs(record.totals),
        );
        if (version <= 0) return null;
        report(json.length);
        return { value: JSON.parse(json) as T, version };
      });
    },
    putMany(entries) {
      return connection.run(`${label}.putMany`, async (client) => {
        checkPutManyShape(label, entries);
        if (entries.length === 0) return { ok: true as const, records: [] };
        const { organization_id: org, parent_id: parent } = entries[0]!.record;
        const jsons = entries.map(({ record }) => JSON.stringify(record));
        // Keys and arguments as one array: a batch of thousands has more arguments than a call may spread.
        const keysAndArgs: string[] = [orderKey(org, parent), totalsKey(org, parent)];
        for (const { record } of entries) keysAndArgs.push(recordKey(org, parent, record.id));
        keysAndArgs.push(randomUUID());
        entries.forEach(({ record, expectedVersion }, i) => {
          const pairs = totalsPairs(record.totals);
          keysAndArgs.push(record.id, jsons[i]!, expectedVersion === undefined ? '' : String(expectedVersion), String(pairs.length / 2));
          for (const pair of pairs) keysAndArgs.push(pair);
        });
        const [written, ...rest] = await client.docevalsChildPutMany(2 + entries.length, keysAndArgs);
        if (written !== 1) return { ok: false as const, conflicts: rest.map((i) => Number(i) - 1) };
        report(jsons.reduce((n, json) => n + json.length, 0));
        return { ok: true as const, records: jsons.map((json, i) => ({ value: JSON.parse(json) as T, version: Number(rest[i]) })) };
      });
    },
    delete(org, parent, id, expectedVersion) {
      return connection.run(`${label}.delete`, async (client) => {
        const expected = expectedVersion === undefined ? '' : String(expectedVersion);
        const deleted = await client.docevalsChildDelete(recordKey(org, parent, id), orderKey(org, parent), totalsKey(org, parent), id, expected);
        if (deleted === 1) report(0);
        return deleted === 1;
      });
    },
    deleteAll(org, parent) {
      return connection.run(`${label}.deleteAll`, async (client) => {
        for (let attempt = 0; attempt < DELETE_ALL_ATTEMPTS; attempt++) {
          const ids = await client.zrange(orderKey(org, parent), '0', '-1');
          const recordKeys = ids.map((id) => recordKey(org, parent, id));
          const count = await client.docevalsChildDeleteAll(2 + recordKeys.length, [orderKey(org, parent), totalsKey(org, parent), ...recordKeys, ...ids]);
          if (count >= 0) {
            report(0);
            return count;
          }
        }
        throw new Error(`children kept coming while deleting every child of a parent (${DELETE_ALL_ATTEMPTS} attempts)`);
      });
    },
    list(org, parent, query) {
      return connection.run(`${label}.list`, async (client) => {
        const limit = Math.max(0, Math.floor(query.limit));
        const reply = await client.docevalsRange(orderKey(org, parent), 'asc', query.after ?? '', '', 'after', limit + 1);
        if (reply === null) return null;
        const ids = reply.slice(1).map(String);
        const records = await fetch(client, org, parent, ids.slice(0, limit));
        // A child deleted between the two reads is left out of the page.
        const items = records.filter((r): r is Versioned<T> => r !== null).map((r) => r.value);
        return { items, has_more: ids.length > limit };
      });
    },
    totals(org, parent) {
      return connection.run(`${label}.totals`, async (client): Promise<ChildTotals> => {
        const hash = await client.hgetall(totalsKey(org, parent));
        const sums: Record<string, number> = {};
        for (const [field, value] of Object.entries(hash)) if (field.startsWith('s:')) sums[field.slice(2)] = Number(value);
        const count = Number(hash.count ?? 0);
        return count > 0 ? { count, sums } : { count: 0, sums: {} };
      });
    },
  };
}

/** The finite numbers of a child's totals as key/value strings (`String` keeps every digit of a double). */
function totalsPairs(totals: Record<string, number> | undefined): string[] {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(totals ?? {})) {
    if (typeof value === 'number' && Number.isFinite(value)) pairs.push(key, String(value));
  }
  return pairs;
}

async function execPipeline<R>(pipeline: ReturnType<Redis['pipeline']>): Promise<R[]> {
  const results = await pipeline.exec();
  if (!results) throw new Error('pipeline discarded');
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply as R;
  });
}
