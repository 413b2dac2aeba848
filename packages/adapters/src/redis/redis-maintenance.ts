import type {
  ChildCollection,
  ChildRecordBase,
  DocumentRecord,
  EvaluationRecord,
  IterationEventRecord,
  IterationRecord,
  PredictionRecord,
  RecordCollection,
} from '@docevals/core';
import type { Redis } from 'ioredis';
import {
  convertEvaluation,
  convertIteration,
  isLegacyEvaluation,
  isLegacyIteration,
} from '../shared/legacy-records.js';
import { decodeKeySegment, type KeyLayout } from './key-layout.js';
import type { DocevalsScripts } from './lua-scripts.js';

/** What the conversion and the sweep work with: the raw client and collections that skip the conversion step. */
export interface Maintenance {
  client: Redis & DocevalsScripts;
  keys: KeyLayout;
  prefix: string;
  evaluations: RecordCollection<EvaluationRecord>;
  iterations: RecordCollection<IterationRecord>;
  documents: ChildCollection<DocumentRecord>;
  predictions: ChildCollection<PredictionRecord>;
  /** Events of iterations' jobs (docs/spec/jobs.md): swept with their iteration like predictions. */
  events: ChildCollection<IterationEventRecord>;
}

/** What `sweepOrphans` reclaimed. */
export interface RedisSweepReport {
  /** Documents whose evaluation is gone, predictions whose iteration is gone. */
  orphanChildren: number;
  /** Iterations that no evaluation lists (and their predictions). */
  orphanIterations: number;
  /** File reference counts set to the number of documents holding the file (a file nobody holds: removed). */
  fileReferencesFixed: number;
}

/** Options of `sweep()`. */
export interface RedisSweepOptions {
  /**
   * Only what has not changed for this long is reclaimed, so an operation under way on another server (an
   * iteration inserted, not yet listed by its evaluation; files retained, documents not yet inserted) is left alone.
   * @default 600000 (10 minutes)
   */
  olderThanMs?: number;
}

/** Every key matching `pattern` of one Redis type, a SCAN batch at a time; without the client's own keyPrefix. */
async function* scanKeys(client: Redis, pattern: string, type: 'hash' | 'zset'): AsyncGenerator<string[]> {
  const clientPrefix = client.options.keyPrefix ?? '';
  let cursor = '0';
  do {
    const [next, found] = await client.scan(cursor, 'MATCH', `${escapeGlob(clientPrefix)}${pattern}`, 'COUNT', 1000, 'TYPE', type);
    cursor = next;
    if (found.length > 0) yield found.map((key) => key.slice(clientPrefix.length));
  } while (cursor !== '0');
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** Splits `{prefix}{<org>}:<kind>:<rest>` into the organization id and the rest; null for another kind. */
function parseKey(prefix: string, key: string, kind: string): { org: string; rest: string } | null {
  const match = /^\{([^}]*)\}:([a-z]+):(.*)$/s.exec(key.slice(prefix.length));
  if (!match || match[2] !== kind) return null;
  return { org: decodeKeySegment(match[1]!), rest: match[3]! };
}

/** Inserts children; a conflict means an earlier (or concurrent) conversion inserted the same ones. */
async function insertConverted<T extends DocumentRecord | PredictionRecord>(collection: ChildCollection<T>, records: T[]): Promise<void> {
  if (records.length === 0) return;
  try {
    await collection.insertMany(records);
  } catch (error) {
    if ((error as { code?: string }).code !== 'conflict') throw error;
  }
}

async function allChildren<T extends DocumentRecord>(collection: ChildCollection<T>, org: string, parent: string): Promise<T[]> {
  const all: T[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await collection.list(org, parent, { limit: 1000, after });
    if (!page) return all;
    all.push(...page.items);
    if (!page.has_more || page.items.length === 0) return all;
    after = page.items[page.items.length - 1]!.id;
  }
}

/**
 * Converts, lazily, records written by the previous release (issue 12): the Redis adapter reads evaluations and
 * iterations through {@link convertingCollection}, which finds a record still in the old shape and rewrites it
 * before answering. An evaluation whose record holds a `documents` array gets its documents as children and is
 * rewritten without it (compare-and-set on its version); an iteration whose record holds a `predictions` map gets
 * its evaluation converted first, then one prediction per document of the evaluation (status, metrics, totals:
 * shared/legacy-records.ts), and is rewritten with status `completed`. Safe on several servers at once and after a
 * crash midway: children already inserted are kept, and a record no longer in the old shape is left alone.
 */
export function convertingCollection<T extends EvaluationRecord | IterationRecord>(
  collection: RecordCollection<T>,
  isLegacy: (value: unknown) => boolean,
  convert: (org: string, id: string) => Promise<void>,
): RecordCollection<T> {
  const convertAll = async (org: string, values: ReadonlyArray<{ id: string } | null | undefined>) => {
    const legacy = values.filter((v): v is { id: string } => !!v && isLegacy(v));
    for (const value of legacy) await convert(org, value.id);
    return legacy.length > 0;
  };
  return {
    ...collection,
    async get(org, id) {
      const found = await collection.get(org, id);
      return found && (await convertAll(org, [found.value])) ? collection.get(org, id) : found;
    },
    async getMany(org, ids) {
      const found = await collection.getMany(org, ids);
      return (await convertAll(org, found.map((f) => f?.value))) ? collection.getMany(org, ids) : found;
    },
    async list(org, query) {
      const page = await collection.list(org, query);
      return page && (await convertAll(org, page.items)) ? collection.list(org, query) : page;
    },
  };
}

export async function migrateEvaluation(m: Maintenance, org: string, id: string): Promise<void> {
  for (;;) {
    const stored = await m.evaluations.get(org, id);
    if (!stored || !isLegacyEvaluation(stored.value)) return;
    const legacy = stored.value;
    const pipeline = m.client.pipeline();
    for (const d of legacy.documents) pipeline.hget(m.keys.file(org, d.id), 'mime_type').hstrlen(m.keys.file(org, d.id), 'bytes');
    const replies = ((await pipeline.exec()) ?? []).map(([, reply]) => reply);
    const facts = new Map(legacy.documents.map((d, i) => [d.id, { mime: replies[2 * i] as string | null, size: Number(replies[2 * i + 1] ?? 0) }]));
    const { evaluation, documents } = convertEvaluation(legacy, (fileId) => {
      const fact = facts.get(fileId);
      return fact?.mime ? { mime_type: fact.mime, size: fact.size } : undefined;
    });
    await insertConverted(m.documents, documents);
    if (await m.evaluations.replace(evaluation, stored.version)) return;
  }
}

export async function migrateIteration(m: Maintenance, org: string, id: string): Promise<void> {
  for (;;) {
    const stored = await m.iterations.get(org, id);
    if (!stored || !isLegacyIteration(stored.value)) return;
    await migrateEvaluation(m, org, stored.value.evaluation_id);
    const documents = await allChildren(m.documents, org, stored.value.evaluation_id);
    const { iteration, predictions } = convertIteration(stored.value, documents);
    await insertConverted(m.predictions, predictions);
    if (await m.iterations.replace(iteration, stored.version)) return;
  }
}

/**
 * Reclaims what a crash can leave between two writes of one service operation (issue 13 L3), for records that have
 * not changed for `olderThanMs`: documents whose evaluation is gone, iterations no evaluation lists (with their
 * predictions), predictions whose iteration is gone, and file reference counts that do not match the documents
 * holding the file. Walks the keyspace with SCAN (never KEYS); every correction is a compare-and-set, so it is
 * safe beside live writers. Run it from a periodic task (e.g. hourly) or by hand.
 */
export async function sweepOrphans(m: Maintenance, options: RedisSweepOptions = {}): Promise<RedisSweepReport> {
  const report: RedisSweepReport = { orphanChildren: 0, orphanIterations: 0, fileReferencesFixed: 0 };
  const cutoff = Date.now() - (options.olderThanMs ?? 600_000);
  const glob = escapeGlob(m.prefix);
  const old = (iso: string | undefined) => iso !== undefined && Date.parse(iso) < cutoff;

  for await (const batch of scanKeys(m.client, `${glob}{*}:iteration:*`, 'hash')) {
    for (const key of batch) {
      const parsed = parseKey(m.prefix, key, 'iteration');
      if (!parsed) continue;
      const iteration = await m.iterations.get(parsed.org, parsed.rest);
      if (!iteration || !old(iteration.value.updated_at)) continue;
      const evaluation = await m.evaluations.get(parsed.org, iteration.value.evaluation_id);
      if (evaluation?.value.iteration_ids.includes(parsed.rest)) continue;
      if (!(await m.iterations.delete(parsed.org, parsed.rest, iteration.version))) continue;
      report.orphanIterations++;
      report.orphanChildren += await m.predictions.deleteAll(parsed.org, parsed.rest);
      report.orphanChildren += await m.events.deleteAll(parsed.org, parsed.rest);
    }
  }

  const sweepChildren = async <T extends ChildRecordBase>(kind: 'docs' | 'preds' | 'events', collection: ChildCollection<T>, parentExists: (org: string, id: string) => Promise<boolean>) => {
    for await (const batch of scanKeys(m.client, `${glob}{*}:${kind}:*`, 'zset')) {
      for (const key of batch) {
        const parsed = parseKey(m.prefix, key, kind);
        if (!parsed) continue;
        const parent = decodeKeySegment(parsed.rest);
        if (await parentExists(parsed.org, parent)) continue;
        const first = (await collection.list(parsed.org, parent, { limit: 1 }))?.items[0];
        if (first && !old(first.updated_at)) continue;
        report.orphanChildren += await collection.deleteAll(parsed.org, parent);
      }
    }
  };
  await sweepChildren('docs', m.documents, async (org, id) => (await m.evaluations.get(org, id)) !== null);
  await sweepChildren('preds', m.predictions, async (org, id) => (await m.iterations.get(org, id)) !== null);
  await sweepChildren('events', m.events, async (org, id) => (await m.iterations.get(org, id)) !== null);

  // Documents are what hold file references (one each).
  const held = new Map<string, number>(); // `${org}\0${fileId}` -> documents holding it
  for await (const batch of scanKeys(m.client, `${glob}{*}:docs:*`, 'zset')) {
    for (const key of batch) {
      const parsed = parseKey(m.prefix, key, 'docs');
      if (!parsed) continue;
      for (const id of await m.client.zrange(key, '0', '-1')) held.set(`${parsed.org}\u0000${id}`, (held.get(`${parsed.org}\u0000${id}`) ?? 0) + 1);
    }
  }
  for await (const batch of scanKeys(m.client, `${glob}{*}:file:*`, 'hash')) {
    for (const key of batch) {
      const parsed = parseKey(m.prefix, key, 'file');
      if (!parsed) continue;
      const [refs, at] = await m.client.hmget(key, 'refs', 'at');
      if (refs === null) continue;
      const holders = held.get(`${parsed.org}\u0000${parsed.rest}`) ?? 0;
      if (Number(refs) === holders || Number(at ?? 0) >= cutoff) continue;
      if ((await m.client.docevalsFixRefs(key, refs, at ?? '', String(holders))) === 1) report.fileReferencesFixed++;
    }
  }
  return report;
}
