import { randomUUID } from 'node:crypto';
import { DocevalsError } from '@docevals/core';
import type { JobCollection, JobRecord, RecordCollection, RecordListQuery, RecordPage, StoredRecordBase, Versioned } from '@docevals/core';
import type { Redis } from 'ioredis';
import { stringFieldKey, type KeyLayout, type RecordKind } from './key-layout.js';
import type { DocevalsScripts } from './lua-scripts.js';
import type { RedisConnection } from './redis-connection.js';
import { execPipeline, readVersioned } from './read-records.js';
import { idTaken } from '@docevals/core/storage-kit';
import { matchesWhere } from '@docevals/core/storage-kit';
import type { WriteObserver } from '@docevals/core/storage-kit';

type Client = Redis & DocevalsScripts;

/**
 * How many ids a filtered list reads from the sorted set per round trip. Only the `s:<field>` copies of those
 * records are fetched to test the filter, so a batch costs little even when the records are large.
 */
const FILTER_BATCH = 100;

/**
 * One record collection: each record a hash (`v`, `json`, `s:<field>`), ordered per organization by a sorted set
 * (score = `updated_at` in ms, member = id). See `key-layout.ts`.
 */
export function redisRecordCollection<T extends StoredRecordBase>(
  connection: RedisConnection,
  keys: KeyLayout,
  kind: RecordKind,
  label: string,
  onWrite?: WriteObserver,
): RecordCollection<T> {
  const recordKey = (organizationId: string, id: string) => keys.record(kind, organizationId, id);
  const indexKey = (organizationId: string) => keys.index(kind, organizationId);

  const fetch = (client: Client, organizationId: string, ids: readonly string[]) =>
    readVersioned<T>(client, ids.map((id) => recordKey(organizationId, id)));

  return {
    get(organizationId, id) {
      return connection.run(`${label}.get`, async (client) => (await fetch(client, organizationId, [id]))[0]);
    },

    getMany(organizationId, ids) {
      return connection.run(`${label}.getMany`, (client) => fetch(client, organizationId, ids));
    },

    insert(record) {
      return connection.run(`${label}.insert`, async (client) => {
        const { json, score, fields } = encodeRecord(record);
        const key = recordKey(record.organization_id, record.id);
        const inserted = await client.docevalsInsert(
          key,
          indexKey(record.organization_id),
          record.id,
          score,
          json,
          writeToken(),
          ...fields,
        );
        if (inserted !== 1) throw idTaken(label, record.id);
        onWrite?.({ collection: label, bytes: json.length });
        return { value: JSON.parse(json) as T, version: 1 };
      });
    },

    replace(record, expectedVersion) {
      return connection.run(`${label}.replace`, async (client) => {
        const { json, score, fields } = encodeRecord(record);
        const key = recordKey(record.organization_id, record.id);
        const token = writeToken();
        const args = [key, indexKey(record.organization_id), record.id, score, json, expectedVersion, token, ...fields] as const;
        const version = await client.docevalsReplace(...args);
        if (version > 0) onWrite?.({ collection: label, bytes: json.length });
        return version > 0 ? { value: JSON.parse(json) as T, version } : null;
      });
    },

    delete(organizationId, id, expectedVersion) {
      return connection.run(`${label}.delete`, async (client) => {
        const expected = expectedVersion ?? '';
        return (await client.docevalsDelete(recordKey(organizationId, id), indexKey(organizationId), id, expected)) === 1;
      });
    },

    list(organizationId, query) {
      return connection.run(`${label}.list`, (client) => listRecords<T>(client, (id) => recordKey(organizationId, id), indexKey(organizationId), query));
    },
  };
}

/**
 * Walks the sorted set from the cursor in the direction of travel, a batch of ids per round trip, keeping the
 * records that match until `limit + 1` did (the extra one only tells `has_more`) or the set is exhausted. Never
 * scans the keyspace: ZRANK of the cursor, then ZRANGE by position (both inside one script, so a batch is
 * consistent with its cursor).
 */
async function listRecords<T extends StoredRecordBase>(
  client: Client,
  recordKey: (id: string) => string,
  index: string,
  query: RecordListQuery,
): Promise<RecordPage<T> | null> {
  const limit = Math.max(0, Math.floor(query.limit));
  const where = Object.entries(query.where ?? {});
  // `before` walks backward from its cursor (the records just before it), also when `after` bounds the walk.
  const backward = query.before !== undefined;
  const side = backward ? 'before' : 'after';
  const batchSize = where.length > 0 ? Math.max(limit + 1, FILTER_BATCH) : limit + 1;

  // Both cursors: the records strictly between them nearest to `before`, walking back until `after`.
  let stopAt: string | undefined;
  if (query.before !== undefined && query.after !== undefined) {
    const ranks = await execPipeline<number | null>(
      client
        .pipeline()
        [query.order === 'desc' ? 'zrevrank' : 'zrank'](index, query.after)
        [query.order === 'desc' ? 'zrevrank' : 'zrank'](index, query.before),
    );
    if (ranks[0] === null || ranks[1] === null) return null;
    if (ranks[1] <= ranks[0]) return { items: [], has_more: false };
    stopAt = query.after;
  }

  const found: Versioned<T>[] = [];
  const seen = new Set<string>();
  let cursor = (backward ? query.before : query.after) ?? '';
  let fallback = '';
  let exhausted = false;
  while (found.length <= limit && !exhausted) {
    const reply = await client.docevalsRange(index, query.order, cursor, fallback, side, batchSize);
    if (reply === null) return null; // only the caller's cursor can be unknown: later ones have a fallback
    const position = Number(reply[0]);
    let ids = reply.slice(1).map(String);
    if (backward) ids.reverse(); // nearest to the cursor first
    exhausted = ids.length < batchSize;
    if (ids.length === 0) break;
    // The next batch continues from the last id of this one; if that record is deleted or moved meanwhile, from
    // where it was (a moved record may then appear twice, hence `seen`).
    cursor = ids[ids.length - 1];
    fallback = String(backward ? position - ids.length : position + ids.length - 1);
    if (stopAt !== undefined) {
      const stop = ids.indexOf(stopAt);
      if (stop !== -1) {
        ids = ids.slice(0, stop);
        exhausted = true;
      }
    }
    const candidates = where.length > 0 ? await filterIds(client, recordKey, ids, where) : ids;
    const records = await readVersioned<T>(client, candidates.map(recordKey));
    for (const record of records) {
      // Re-checked on the body: the record may have changed between the filter read and this one.
      if (!record || seen.has(record.value.id) || !matchesWhere(record.value, query.where)) continue;
      seen.add(record.value.id);
      found.push(record);
      if (found.length > limit) break;
    }
  }
  const items = found.slice(0, limit).map((record) => record.value);
  if (backward) items.reverse();
  return { items, has_more: found.length > limit };
}

/** The ids among `ids` whose stored string fields match `where` (one round trip, no record bodies). */
async function filterIds(client: Client, recordKey: (id: string) => string, ids: string[], where: [string, string][]): Promise<string[]> {
  const pipeline = client.pipeline();
  const fields = where.map(([name]) => stringFieldKey(name));
  for (const id of ids) pipeline.hmget(recordKey(id), ...fields);
  const replies = await execPipeline<Array<string | null>>(pipeline);
  return ids.filter((_, i) => where.every(([, value], j) => replies[i][j] === value));
}

/** The record as stored: its JSON, its score (`updated_at` in ms) and its string fields as `s:<field>` pairs. */
function encodeRecord(record: StoredRecordBase): { json: string; score: number; fields: string[] } {
  const score = Date.parse(record.updated_at);
  if (!Number.isFinite(score)) {
    throw new DocevalsError('validation_error', `updated_at of "${record.id}" is not an ISO 8601 timestamp.`);
  }
  const fields: string[] = [];
  for (const [name, value] of Object.entries(record)) {
    if (typeof value === 'string') fields.push(stringFieldKey(name), value);
  }
  return { json: JSON.stringify(record), score, fields };
}

/**
 * The jobs: records as any collection, plus a set of ids per organization (`jobsof:<org>`) that the capped insert
 * counts and that every insert and delete of this collection keeps, each in the same script as the record.
 */
export function redisJobCollection(connection: RedisConnection, keys: KeyLayout, onWrite?: WriteObserver): JobCollection {
  const base = redisRecordCollection<JobRecord>(connection, keys, 'job', 'jobs', onWrite);
  const recordKey = (organizationId: string, id: string) => keys.record('job', organizationId, id);

  function insertWithin(record: JobRecord, cap: number, operation: string): Promise<Versioned<JobRecord> | null> {
    return connection.run(operation, async (client) => {
      const { json, score, fields } = encodeRecord(record);
      const inserted = await client.docevalsInsertJob(
        recordKey(record.organization_id, record.id),
        keys.index('job', record.organization_id),
        keys.organizationJobs(record.organization_id, record.iteration_organization_id),
        record.id,
        score,
        json,
        writeToken(),
        cap,
        ...fields,
      );
      if (inserted === 0) throw idTaken('jobs', record.id);
      if (inserted < 0) return null;
      onWrite?.({ collection: 'jobs', bytes: json.length });
      return { value: JSON.parse(json) as JobRecord, version: 1 };
    });
  }

  return {
    ...base,
    // Other records share the collection (the organization secrets, in their own scope): they are stored as any record.
    insert: async (record) =>
      typeof record.iteration_organization_id === 'string'
        ? (await insertWithin(record, Number.MAX_SAFE_INTEGER, 'jobs.insert'))!
        : base.insert(record),
    insertWithinCap: (record, cap) => insertWithin(record, cap, 'jobs.insertWithinCap'),
    delete(organizationId, id, expectedVersion) {
      return connection.run('jobs.delete', async (client) => {
        const key = recordKey(organizationId, id);
        // The organization is part of the id and never changes for it: reading it first is safe.
        const organization = await client.hget(key, stringFieldKey('iteration_organization_id'));
        const expected = expectedVersion ?? '';
        if (organization === null) {
          return (await client.docevalsDelete(key, keys.index('job', organizationId), id, expected)) === 1;
        }
        return (
          (await client.docevalsDeleteJob(key, keys.index('job', organizationId), keys.organizationJobs(organizationId, organization), id, expected)) === 1
        );
      });
    },
  };
}

/** A token unique to one write call (see lua-scripts.ts: a resent command recognises its own write). */
function writeToken(): string {
  return randomUUID();
}
