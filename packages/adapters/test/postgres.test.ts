import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Storage } from '@docevals/core';
import { updateRecord } from '@docevals/core/internal';
import { runStorageConformance } from '@docevals/adapters/conformance';
import { migrate, MIGRATIONS, postgresStorage } from '@docevals/adapters/postgres';
import { Pool } from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startPostgresServer, type PostgresServerHandle } from '../../../test-support/postgres-global-setup.js';
import { pgDocument, pgEvaluation, pgPrediction } from './support/postgres-fixtures.js';
import type { IterationRecord } from '@docevals/core';
import { retryUntil } from './support/retry-until.js';
import { rejectionOf } from '../../../test-support/rejection.js';

/** A minimal iteration record of `evaluationId` (the sweep reads only ids, evaluation_id and updated_at). */
function iterationOf(evaluationId: string, id: string): IterationRecord {
  const now = new Date().toISOString();
  return {
    id,
    organization_id: 'org_1',
    updated_at: now,
    created_at: now,
    evaluation_id: evaluationId,
    model: 'local-rules',
    inference_settings: { model: 'local-rules' } as IterationRecord['inference_settings'],
    json_schema: { type: 'object' },
    schema_id: 'sch',
    schema_data_id: 'sch_data',
    status: 'completed',
    started_at: now,
    finished_at: now,
    error: null,
    lease: null,
  } as IterationRecord;
}

const url = inject('databaseUrl');
/** Every schema this file creates starts with it; afterAll drops them. */
const filePrefix = `t_${process.pid}_${Date.now().toString(36)}_`;
let n = 0;
const freshSchema = () => `${filePrefix}${++n}`;

const admin = new Pool({ connectionString: url, max: 2 });
/** A host's pool, shared by every store of the host-pool conformance run. */
const hostPool = new Pool({ connectionString: url, max: 10 });
const schemaOf = new WeakMap<Storage, string>();
const written = new WeakMap<Storage, { bytes: number }>();

/** A store on `schema` whose writes are metered for the conformance suite's bounded-write check. */
function metered(open: (onWrite: (w: { bytes: number }) => void) => Storage, schema: string): Storage {
  const meter = { bytes: 0 };
  const storage = open((w) => (meter.bytes += w.bytes));
  written.set(storage, meter);
  schemaOf.set(storage, schema);
  return storage;
}

afterAll(async () => {
  const { rows } = await admin.query<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)', [filePrefix]);
  for (const { nspname } of rows) await admin.query(`DROP SCHEMA "${nspname}" CASCADE`);
  await hostPool.end();
  await admin.end();
  // Dropping every schema of the file takes more than the default 30 s on a loaded machine.
}, 120_000);

runStorageConformance({
  name: 'postgres (connectionString)',
  create: () => {
    const schema = freshSchema();
    return metered((onWrite) => postgresStorage({ connectionString: url, schema, onWrite }), schema);
  },
  reopen: async (previous) => {
    await previous.close();
    const schema = schemaOf.get(previous)!;
    return metered((onWrite) => postgresStorage({ connectionString: url, schema, onWrite }), schema);
  },
  writtenBytes: (storage) => written.get(storage)!.bytes,
});

runStorageConformance({
  name: 'postgres (host pool)',
  create: () => {
    const schema = freshSchema();
    return metered((onWrite) => postgresStorage({ pool: hostPool, schema, onWrite }), schema);
  },
  reopen: async (previous) => {
    await previous.close();
    const schema = schemaOf.get(previous)!;
    return metered((onWrite) => postgresStorage({ pool: hostPool, schema, onWrite }), schema);
  },
  writtenBytes: (storage) => written.get(storage)!.bytes,
});

const failure = (promise: Promise<unknown>) => rejectionOf(promise);

async function tablesOf(schema: string): Promise<string[]> {
  const { rows } = await admin.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1', [schema]);
  return rows.map((r) => r.tablename);
}

describe('postgresStorage', () => {
  it('refuses options with neither or both of pool and connectionString, and an empty schema', () => {
    expect(() => postgresStorage({})).toThrow(/exactly one of `pool`/);
    expect(() => postgresStorage({ pool: hostPool, connectionString: url })).toThrow(/exactly one of `pool`/);
    expect(() => postgresStorage({ pool: hostPool, schema: '' })).toThrow(/schema/);
  });

  it('creates its documented tables in its schema at first use, and records the migration', async () => {
    const schema = freshSchema();
    const storage = postgresStorage({ pool: hostPool, schema });
    expect(await tablesOf(schema)).toEqual([]); // nothing happens before the first operation
    expect(await storage.evaluations.get('org_1', 'missing')).toBeNull();
    expect(await tablesOf(schema)).toEqual([
      'documents',
      'documents_parents',
      'evaluations',
      'events',
      'events_parents',
      'files',
      'iterations',
      'jobs',
      'predictions',
      'predictions_parents',
      'processors',
      'schema_migrations',
    ]);
    const { rows } = await admin.query(`SELECT version, name FROM "${schema}".schema_migrations`);
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    await storage.close();
  });

  it('gives a record back exactly as written: key order (which jsonb would sort), unicode, numbers', async () => {
    const storage = postgresStorage({ pool: hostPool, schema: freshSchema() });
    const record = { ...pgEvaluation('org_1', 'eval_1'), name: 'Zürich — 東京 🚀 \u2028 "q" \\' };
    await storage.evaluations.insert(record);
    const back = await storage.evaluations.get('org_1', 'eval_1');
    expect(JSON.stringify(back!.value)).toBe(JSON.stringify(record));
    await storage.close();
  });

  it('keeps and filters on strings jsonb cannot hold (NUL, lone surrogates), exactly', async () => {
    const storage = postgresStorage({ pool: hostPool, schema: freshSchema() });
    const odd = 'a\u0000b\ud800c\\u0000';
    await storage.evaluations.insert({ ...pgEvaluation('org_1', 'eval_odd'), name: odd });
    await storage.evaluations.insert({ ...pgEvaluation('org_1', 'eval_near'), name: 'a\\u0000b\\ud800c\\u0000' });
    expect((await storage.evaluations.get('org_1', 'eval_odd'))!.value.name).toBe(odd);
    const page = await storage.evaluations.list('org_1', { limit: 10, order: 'asc', where: { name: odd } });
    expect(page!.items.map((r) => r.id)).toEqual(['eval_odd']);
    await storage.close();
  });

  it('leaves a host pool open on close(), ends its own, and refuses to work once closed', async () => {
    const mine = postgresStorage({ pool: hostPool, schema: freshSchema() });
    await mine.evaluations.insert(pgEvaluation('org_1', 'eval_1'));
    await mine.close();
    await mine.close();
    expect((await hostPool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    expect(await failure(mine.evaluations.get('org_1', 'eval_1'))).toMatchObject({ code: 'storage_error' });

    const owned = postgresStorage({ connectionString: url, schema: freshSchema() });
    await owned.evaluations.insert(pgEvaluation('org_1', 'eval_1'));
    await owned.close();
    expect(await failure(owned.evaluations.get('org_1', 'eval_1'))).toMatchObject({ code: 'storage_error' });
  });

  it('fails with storage_error and the cause when nothing listens', async () => {
    const storage = postgresStorage({ connectionString: 'postgres://postgres@127.0.0.1:1/none', schema: freshSchema() });
    const error = await failure(storage.evaluations.get('org_1', 'eval_1'));
    expect(error).toMatchObject({ code: 'storage_error' });
    expect(error.message).toBe('The postgres storage failed during evaluations.get (ECONNREFUSED).'); // no host, no port
    expect(error.cause).toBeInstanceOf(Error);
    await storage.close();
  });

  it('keeps children in insertion order with exact totals through insertMany, put, delete and deleteAll', async () => {
    const storage = postgresStorage({ pool: hostPool, schema: freshSchema() });
    const p = storage.predictions;
    const ids = ['d_c', 'd_a', 'd_b'];
    await p.insertMany(ids.map((id, i) => pgPrediction('org_1', 'it_1', id, (i + 1) / 4)));
    expect((await p.list('org_1', 'it_1', { limit: 10 }))!.items.map((r) => r.id)).toEqual(ids);
    expect(await p.totals('org_1', 'it_1')).toMatchObject({ count: 3, sums: { succeeded: 3, similarity: 1.5, cost: 0.75 } });

    // A batch with one taken id writes nothing, and neither does one with an id twice.
    expect(await failure(p.insertMany([pgPrediction('org_1', 'it_1', 'd_new'), pgPrediction('org_1', 'it_1', 'd_a')]))).toMatchObject({
      code: 'conflict',
    });
    expect(await failure(p.insertMany([pgPrediction('org_1', 'it_1', 'd_x'), pgPrediction('org_1', 'it_1', 'd_x')]))).toMatchObject({
      code: 'conflict',
    });
    expect(await p.get('org_1', 'it_1', 'd_new')).toBeNull();
    expect((await p.totals('org_1', 'it_1')).count).toBe(3);

    // Replace keeps the place; put modes.
    const replaced = await p.put(pgPrediction('org_1', 'it_1', 'd_c', 1), 1);
    expect(replaced!.version).toBe(2);
    expect(await p.put(pgPrediction('org_1', 'it_1', 'd_c', 1), 1)).toBeNull();
    expect(await p.put(pgPrediction('org_1', 'it_1', 'd_c', 1), 0)).toBeNull();
    expect((await p.put(pgPrediction('org_1', 'it_1', 'd_d', 0), 0))!.version).toBe(1);
    expect((await p.put(pgPrediction('org_1', 'it_1', 'd_d', 0.5)))!.version).toBe(2);
    expect(await p.put(pgPrediction('org_1', 'it_1', 'd_none'), 3)).toBeNull();
    expect((await p.list('org_1', 'it_1', { limit: 10 }))!.items.map((r) => r.id)).toEqual(['d_c', 'd_a', 'd_b', 'd_d']);
    expect(await p.totals('org_1', 'it_1')).toMatchObject({ count: 4, sums: { succeeded: 4, similarity: 2.75 } });

    // Delete then insert again: last in order.
    expect(await p.delete('org_1', 'it_1', 'd_a', 5)).toBe(false);
    expect(await p.delete('org_1', 'it_1', 'd_a', 1)).toBe(true);
    expect(await p.delete('org_1', 'it_1', 'd_a')).toBe(false);
    await p.put(pgPrediction('org_1', 'it_1', 'd_a', 0.25));
    const page1 = await p.list('org_1', 'it_1', { limit: 2 });
    expect(page1).toMatchObject({ has_more: true });
    const page2 = await p.list('org_1', 'it_1', { limit: 2, after: page1!.items[1].id });
    expect([...page1!.items, ...page2!.items].map((r) => r.id)).toEqual(['d_c', 'd_b', 'd_d', 'd_a']);
    expect(page2!.has_more).toBe(false);
    expect(await p.list('org_1', 'it_1', { limit: 2, after: 'nope' })).toBeNull();
    expect(await p.list('org_2', 'it_1', { limit: 2 })).toEqual({ items: [], has_more: false });
    expect(await p.totals('org_2', 'it_1')).toEqual({ count: 0, sums: {} });

    expect(await p.deleteAll('org_1', 'it_1')).toBe(4);
    expect(await p.totals('org_1', 'it_1')).toEqual({ count: 0, sums: {} });
    expect(await p.deleteAll('org_1', 'it_1')).toBe(0);
    await storage.close();
  });

  it('writes a large insertMany (COPY) exactly: escapes, order, totals, and a taken id fails it whole', async () => {
    const storage = postgresStorage({ pool: hostPool, schema: freshSchema() });
    const p = storage.predictions;
    const awkward = 'tab\there, line\nbreak, cr\r, back\\slash \\N \\., quote ", NUL \u0000, \ud800 lone, é 日本';
    const batch = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => {
        const record = pgPrediction('org\t1', 'it\\1', `d\n${from + i}`, (i % 4) / 4);
        return { ...record, prediction: { vendor_name: `${awkward} ${from + i}`, total: from + i } };
      });
    const first = batch(0, 100);
    const written = await p.insertMany(first);
    expect(written.map((w) => w.version)).toEqual(first.map(() => 1));
    const page = (await p.list('org\t1', 'it\\1', { limit: 200 }))!;
    expect(page.items).toEqual(first); // every byte back, in the order given
    expect(await p.totals('org\t1', 'it\\1')).toMatchObject({ count: 100, sums: { succeeded: 100, similarity: 37.5 } });

    // A second large batch to the same parent: one id already there fails the whole batch, nothing of it stays.
    const second = batch(100, 80);
    expect(await failure(p.insertMany([...second, first[42]!]))).toMatchObject({ code: 'conflict', message: expect.stringContaining('d\n42') });
    expect((await p.totals('org\t1', 'it\\1')).count).toBe(100);
    await p.insertMany(second);
    const all = (await p.list('org\t1', 'it\\1', { limit: 500 }))!.items;
    expect(all.map((r) => r.id)).toEqual([...first, ...second].map((r) => r.id));
    expect(await p.get('org\t1', 'it\\1', 'd\n150')).toMatchObject({ value: second[50], version: 1 });
    await storage.close();
  });

  it('counts a file given twice in one retainMany twice, and releases it only with the last reference', async () => {
    const storage = postgresStorage({ pool: hostPool, schema: freshSchema() });
    const content = { bytes: new Uint8Array([1, 2, 3]), mime_type: 'application/pdf' };
    expect(
      await storage.files.retainMany('org_1', [
        { fileId: 'f1', content },
        { fileId: 'f1' },
        { fileId: 'f2' },
        { fileId: 'f3', content },
      ]),
    ).toEqual([true, true, false, true]);
    await storage.files.releaseMany('org_1', ['f1', 'f3']);
    expect(await storage.files.get('org_1', 'f3')).toBeNull();
    expect(await storage.files.get('org_1', 'f1')).toEqual(content);
    await storage.files.release('org_1', 'f1');
    expect(await storage.files.get('org_1', 'f1')).toBeNull();
    await storage.close();
  });
});

describe('postgresStorage sweep()', () => {
  it('reclaims what a crash left (unlisted iterations, children of gone parents, wrong file counts), old enough only', async () => {
    const schema = freshSchema();
    const storage = postgresStorage({ pool: hostPool, schema });
    const old = new Date(Date.now() - 3_600_000).toISOString();
    const content = { bytes: new Uint8Array([7]), mime_type: 'application/pdf' };
    // A live evaluation listing it_live, with one document holding f_held.
    await storage.evaluations.insert({ ...pgEvaluation('org_1', 'eval_live', old), iteration_ids: ['it_live'] });
    await storage.iterations.insert({ ...iterationOf('eval_live', 'it_live'), updated_at: old });
    await storage.files.retainMany('org_1', [{ fileId: 'f_held', content }, { fileId: 'f_held' }, { fileId: 'f_none', content }]);
    await storage.documents.insertMany([{ ...pgDocument('org_1', 'eval_live', 'f_held'), updated_at: old }]);
    // Orphans: an iteration no evaluation lists (with a prediction), documents and predictions of gone parents.
    await storage.iterations.insert({ ...iterationOf('eval_live', 'it_orphan'), updated_at: old });
    await storage.predictions.insertMany([{ ...pgPrediction('org_1', 'it_orphan', 'f_held'), updated_at: old }]);
    await storage.documents.insertMany([{ ...pgDocument('org_1', 'eval_gone', 'f_x'), updated_at: old }]);
    await storage.predictions.insertMany([{ ...pgPrediction('org_1', 'it_gone', 'f_x'), updated_at: old }]);
    // Recent ones, maybe an operation under way on another server: kept.
    await storage.iterations.insert(iterationOf('eval_live', 'it_recent'));
    await storage.documents.insertMany([pgDocument('org_1', 'eval_recent_gone', 'f_y')]);

    // The records are an hour old; the files were touched just now, so their counts are left alone.
    expect(await storage.sweep()).toEqual({ orphanChildren: 3, orphanIterations: 1, fileReferencesFixed: 0 });
    expect(await storage.files.get('org_1', 'f_none')).not.toBeNull();
    // Files count as old once their touched_at is; this test ages them instead of waiting.
    await admin.query(`UPDATE "${schema}".files SET touched_at = now() - interval '1 hour'`);
    expect(await storage.sweep({ olderThanMs: 60_000 })).toEqual({ orphanChildren: 0, orphanIterations: 0, fileReferencesFixed: 2 });
    expect(await storage.iterations.get('org_1', 'it_orphan')).toBeNull();
    expect(await storage.iterations.get('org_1', 'it_live')).not.toBeNull();
    expect(await storage.iterations.get('org_1', 'it_recent')).not.toBeNull();
    expect((await storage.documents.totals('org_1', 'eval_gone')).count).toBe(0);
    expect((await storage.documents.totals('org_1', 'eval_recent_gone')).count).toBe(1);
    expect((await storage.predictions.totals('org_1', 'it_gone')).count).toBe(0);
    // f_held had 2 references for 1 document: now 1 (one release removes it); f_none had no document: gone.
    expect(await storage.files.get('org_1', 'f_none')).toBeNull();
    await storage.files.release('org_1', 'f_held');
    expect(await storage.files.get('org_1', 'f_held')).toBeNull();
    expect(await storage.sweep({ olderThanMs: 60_000 })).toEqual({ orphanChildren: 0, orphanIterations: 0, fileReferencesFixed: 0 });
    await storage.close();
  });
});

describe('postgresStorage migrations', () => {
  it('applies each version once when eight pools migrate one fresh schema at the same moment', async () => {
    const schema = freshSchema();
    const pools = Array.from({ length: 8 }, () => new Pool({ connectionString: url, max: 1 }));
    try {
      const results = await Promise.all(pools.map((pool) => migrate(pool, schema)));
      expect(results.flatMap((r) => r.applied).sort()).toEqual(MIGRATIONS.map((m) => m.version));
      expect(new Set(results.map((r) => r.version))).toEqual(new Set([MIGRATIONS.at(-1)!.version]));
      const { rows } = await admin.query(`SELECT version FROM "${schema}".schema_migrations`);
      expect(rows).toHaveLength(MIGRATIONS.length);
      // And again: nothing to do.
      expect(await migrate(pools[0], schema)).toEqual({ applied: [], version: MIGRATIONS.at(-1)!.version });
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('stores that start at once on a fresh schema all work (the first operation migrates)', async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 4 }, () => postgresStorage({ connectionString: url, schema, poolConfig: { max: 2 } }));
    await Promise.all(stores.map((s, i) => s.evaluations.insert(pgEvaluation('org_1', `eval_${i}`))));
    expect((await stores[0].evaluations.list('org_1', { limit: 10, order: 'asc' }))!.items).toHaveLength(4);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('never leaves a version half-applied: a failing one rolls back whole and is retried on the next call', async () => {
    const schema = freshSchema();
    const pool = new Pool({ connectionString: url, max: 1 });
    try {
      await migrate(pool, schema);
      // A table in the way of migration 1's first statement, in a fresh second schema: the migration must fail
      // without leaving any of its other tables behind.
      const other = freshSchema();
      await admin.query(`CREATE SCHEMA "${other}"; CREATE TABLE "${other}".files (x int)`);
      expect(await failure(migrate(pool, other))).toBeInstanceOf(Error);
      expect(await tablesOf(other)).toEqual(['files', 'schema_migrations']);
      expect((await admin.query(`SELECT count(*)::int AS n FROM "${other}".schema_migrations`)).rows[0].n).toBe(0);
      await admin.query(`DROP TABLE "${other}".files`);
      expect((await migrate(pool, other)).applied).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await pool.end();
    }
  });
});

describe('postgresStorage query plans', () => {
  /** The index the planner picks for a child's lookup by id, read from EXPLAIN (FORMAT JSON). */
  async function lookupIndex(schema: string, table: string, parentId: string, id: string): Promise<string> {
    const { rows } = await admin.query<{ 'QUERY PLAN': Array<{ Plan: { 'Index Name'?: string; 'Node Type': string } }> }>(
      `EXPLAIN (FORMAT JSON) SELECT id, version, body FROM "${schema}".${table} WHERE organization_id = $1 AND parent_id = $2 AND id = $3`,
      ['org_1', parentId, id],
    );
    const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
    return plan['Index Name'] ?? plan['Node Type'];
  }
  const reltuples = async (schema: string, table: string) =>
    Number((await admin.query('SELECT reltuples FROM pg_class WHERE oid = $1::regclass', [`"${schema}".${table}`])).rows[0].reltuples);

  it("looks a child up by its primary key with no statistics at all, and a large insertMany leaves the table analyzed until it has doubled", async () => {
    const schema = freshSchema();
    const storage = postgresStorage({ connectionString: url, schema });
    try {
      // Batches under the ANALYZE threshold: the tables are never analyzed (reltuples -1), as right after a bulk load.
      for (let b = 0; b < 3; b++) {
        const ids = Array.from({ length: 900 }, (_, i) => `d_${b}_${i}`);
        await storage.documents.insertMany(ids.map((id) => pgDocument('org_1', 'eval_1', id)));
        await storage.predictions.insertMany(ids.map((id) => pgPrediction('org_1', 'it_1', id)));
      }
      expect(await reltuples(schema, 'documents')).toBe(-1);
      expect(await reltuples(schema, 'predictions')).toBe(-1);
      expect(await lookupIndex(schema, 'documents', 'eval_1', 'd_1_450')).toBe('documents_pkey');
      expect(await lookupIndex(schema, 'predictions', 'it_1', 'd_1_450')).toBe('predictions_pkey');
      // Pages of a list still come from the order index, in order.
      const page = await storage.documents.list('org_1', 'eval_1', { limit: 3, after: 'd_0_898' });
      expect(page!.items.map((d) => d.id)).toEqual(['d_0_899', 'd_1_0', 'd_1_1']);

      // 1,000 rows in one insertMany: analyzed before it returns.
      await storage.predictions.insertMany(Array.from({ length: 1_000 }, (_, i) => pgPrediction('org_1', 'it_2', `d_${i}`)));
      expect(await reltuples(schema, 'predictions')).toBeGreaterThan(3_000);
      expect(await lookupIndex(schema, 'predictions', 'it_2', 'd_500')).toBe('predictions_pkey');
      expect(await reltuples(schema, 'documents')).toBe(-1);

      // Analyzed again only once the table has doubled: 1,500 more rows into 3,700 known are not; 4,000 more are.
      const known = await reltuples(schema, 'predictions');
      await storage.predictions.insertMany(Array.from({ length: 1_500 }, (_, i) => pgPrediction('org_1', 'it_3', `d_${i}`)));
      expect(await reltuples(schema, 'predictions')).toBe(known);
      await storage.predictions.insertMany(Array.from({ length: 4_000 }, (_, i) => pgPrediction('org_1', 'it_4', `d_${i}`)));
      expect(await reltuples(schema, 'predictions')).toBeGreaterThan(known + 5_000);
    } finally {
      await storage.close();
    }
  });

  it('migration 4 re-keys the order indexes of a store written by version 3, keeping its lists', async () => {
    const schema = freshSchema();
    const storage = postgresStorage({ connectionString: url, schema });
    try {
      await storage.documents.insertMany(['a', 'b', 'c'].map((id) => pgDocument('org_1', 'eval_1', id)));
      // Back to version 3's indexes, as a store of the previous release left them.
      for (const t of ['documents', 'predictions', 'events']) {
        await admin.query(`DROP INDEX "${schema}".${t}_order; CREATE UNIQUE INDEX ${t}_order ON "${schema}".${t} (organization_id, parent_id, position)`);
      }
      await admin.query(`DROP INDEX "${schema}".documents_by_file; CREATE INDEX documents_by_file ON "${schema}".documents (organization_id, id)`);
      await admin.query(`DELETE FROM "${schema}".schema_migrations WHERE version = 4`);
      const pool = new Pool({ connectionString: url, max: 1 });
      try {
        expect(await migrate(pool, schema)).toEqual({ applied: [4], version: 4 });
      } finally {
        await pool.end();
      }
      const { rows } = await admin.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2', [schema, 'documents_order']);
      expect(rows[0]!.indexdef).toContain('ARRAY[organization_id, parent_id]');
      const options = await admin.query('SELECT reloptions FROM pg_class WHERE oid = $1::regclass', [`"${schema}".predictions`]);
      expect(options.rows[0].reloptions).toEqual(['fillfactor=85']);
      expect((await storage.documents.list('org_1', 'eval_1', { limit: 10, after: 'a' }))!.items.map((d) => d.id)).toEqual(['b', 'c']);
    } finally {
      await storage.close();
    }
  });
});

describe('postgresStorage across pools and processes', () => {
  it('two stores (two pools) writing the same records at once lose no write', async () => {
    const schema = freshSchema();
    const a = postgresStorage({ connectionString: url, schema, poolConfig: { max: 4 } });
    const b = postgresStorage({ connectionString: url, schema, poolConfig: { max: 4 } });
    await a.evaluations.insert(pgEvaluation('org_1', 'eval_pg'));
    const append = (store: Storage, tag: string) =>
      updateRecord(store.evaluations, 'org_1', 'eval_pg', (current) => ({
        write: { ...current, iteration_ids: [...current.iteration_ids, tag], updated_at: new Date().toISOString() },
        result: undefined,
      }));
    const tags = Array.from({ length: 40 }, (_, i) => i);
    await Promise.all([
      ...tags.map((i) => append(a, `a-${i}`)),
      ...tags.map((i) => append(b, `b-${i}`)),
      // The same predictions written by both at once: totals must count each child once.
      ...tags.map((i) => a.predictions.put(pgPrediction('org_1', 'it_1', `d-${i}`, 0.5))),
      ...tags.map((i) => b.predictions.put(pgPrediction('org_1', 'it_1', `d-${i}`, 0.5))),
      ...tags.map((i) => (i % 2 ? a : b).files.retain('org_1', 'shared', { bytes: new Uint8Array([i]), mime_type: 'image/png' })),
    ]);
    const stored = await b.evaluations.get('org_1', 'eval_pg');
    expect(stored!.value.iteration_ids).toHaveLength(80);
    expect(new Set(stored!.value.iteration_ids).size).toBe(80);
    expect(stored!.version).toBe(81);
    expect(await a.predictions.totals('org_1', 'it_1')).toMatchObject({ count: 40, sums: { succeeded: 40, similarity: 20 } });
    const versions = await a.predictions.getMany('org_1', 'it_1', tags.map((i) => `d-${i}`));
    expect(versions.every((v) => v!.version === 2)).toBe(true);
    // 40 references: 39 releases keep the file, the 40th removes it.
    await Promise.all(tags.slice(1).map((i) => (i % 2 ? b : a).files.release('org_1', 'shared')));
    expect(await a.files.get('org_1', 'shared')).not.toBeNull();
    await a.files.release('org_1', 'shared');
    expect(await b.files.get('org_1', 'shared')).toBeNull();
    await Promise.all([a.close(), b.close()]);
  });

  it('loses none of 2 × 60 writes made by two processes to one evaluation and one iteration', async () => {
    const schema = freshSchema();
    const storage = postgresStorage({ connectionString: url, schema });
    await storage.evaluations.insert(pgEvaluation('org_1', 'eval_pg'));
    // Four writers in each process: they contend within and across processes (the retries below).
    const [outA, outB] = await Promise.all([runWriter(schema, 'a', '60', '4'), runWriter(schema, 'b', '60', '4')]);
    const stored = await storage.evaluations.get('org_1', 'eval_pg');
    expect(new Set(stored!.value.iteration_ids).size).toBe(120);
    expect(stored!.version).toBe(121);
    expect((await storage.predictions.totals('org_1', 'it_pg')).count).toBe(120);
    const retries = [outA, outB].map((o) => JSON.parse(o.trim().split('\n').at(-1)!).retries as number);
    expect(retries.reduce((x, y) => x + y, 0)).toBeGreaterThan(0); // they did contend
    await storage.close();
  }, 60_000);

  it('after kill -9 of a writer mid-writes, every acknowledged write is there, and the totals agree', async () => {
    const schema = freshSchema();
    const storage = postgresStorage({ connectionString: url, schema });
    await storage.evaluations.insert(pgEvaluation('org_1', 'eval_pg'));
    const child = spawnWriter(schema, 'k', 'forever');
    await child.waitForLines(40);
    child.process.kill('SIGKILL');
    await child.exited;
    const acknowledged = child.lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
    expect(acknowledged.length).toBeGreaterThanOrEqual(40);

    const reopened = postgresStorage({ connectionString: url, schema });
    const stored = (await reopened.evaluations.get('org_1', 'eval_pg'))!;
    expect(stored.value.iteration_ids).toEqual(expect.arrayContaining(acknowledged));
    expect(stored.version).toBe(stored.value.iteration_ids.length + 1);
    const predictions = await reopened.predictions.getMany('org_1', 'it_pg', acknowledged);
    expect(predictions.every((p) => p !== null)).toBe(true);
    // Whatever the kill cut, the per-parent totals match the children that are there.
    const all = [];
    let after: string | undefined;
    for (;;) {
      const page = (await reopened.predictions.list('org_1', 'it_pg', { limit: 25, after }))!;
      all.push(...page.items);
      if (!page.has_more) break;
      after = page.items.at(-1)!.id;
    }
    const totals = await reopened.predictions.totals('org_1', 'it_pg');
    expect(totals.count).toBe(all.length);
    expect(totals.sums.similarity).toBeCloseTo(all.reduce((s, p) => s + p.totals.similarity, 0), 9);
    for (const name of acknowledged) expect(await reopened.files.get('org_1', `file_${name}`)).not.toBeNull();
    await Promise.all([storage.close(), reopened.close()]);
  }, 60_000);
});

describe('postgresStorage when PostgreSQL is killed mid-use', () => {
  let server: PostgresServerHandle;
  afterAll(async () => {
    await server?.stop();
    if (server) rmSync(server.dir, { recursive: true, force: true }); // the restarted server does not own its folder
  });

  it('fails in-flight and new operations with storage_error, then finds every acknowledged write after a restart', async () => {
    server = await startPostgresServer();
    const storage = postgresStorage({ connectionString: server.url, schema: 'docevals' });
    await storage.evaluations.insert(pgEvaluation('org_1', 'eval_pg'));
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let stop = false;
    let counter = 0;
    const writers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const tag = `w-${counter++}`;
        try {
          await updateRecord(storage.evaluations, 'org_1', 'eval_pg', (current) => ({
            write: { ...current, iteration_ids: [...current.iteration_ids, tag], updated_at: new Date().toISOString() },
            result: undefined,
          }));
          await storage.predictions.put(pgPrediction('org_1', 'it_pg', tag));
          acknowledged.push(tag);
        } catch (error) {
          failures.push((error as { code?: string }).code ?? String(error));
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    });
    await eventually(async () => expect(acknowledged.length).toBeGreaterThan(30));
    await server.stop({ kill: true, keep: true }); // kill -9 of the postmaster: a crash, no shutdown checkpoint
    await eventually(async () => expect(failures.length).toBeGreaterThan(3));
    stop = true;
    await Promise.all(writers);
    expect(new Set(failures)).toEqual(new Set(['storage_error']));

    server = await startPostgresServer({ dir: server.dir, port: server.port });
    const back = (await eventually(() => storage.evaluations.get('org_1', 'eval_pg')))!;
    expect(back.value.iteration_ids).toEqual(expect.arrayContaining(acknowledged));
    expect(back.version).toBe(back.value.iteration_ids.length + 1);
    expect((await storage.predictions.getMany('org_1', 'it_pg', acknowledged)).every((p) => p !== null)).toBe(true);
    await storage.predictions.put(pgPrediction('org_1', 'it_pg', 'after_restart'));
    expect(await storage.predictions.get('org_1', 'it_pg', 'after_restart')).not.toBeNull();
    await storage.close();
  }, 60_000);
});

/** Retries `probe` until it resolves (the pool opens fresh connections by itself). */
const eventually = <T>(probe: () => Promise<T>) => retryUntil(probe, { timeoutMs: 20_000, pollMs: 100 });

const root = fileURLToPath(new URL('../../../', import.meta.url));
const writerScript = fileURLToPath(new URL('./support/postgres-writer.ts', import.meta.url));

function spawnWriter(schema: string, tag: string, count: string, concurrency = '1') {
  const child = spawn(process.execPath, ['--import', 'tsx', writerScript, url, schema, 'org_1', tag, count, concurrency], {
    cwd: root, // tsx resolves @docevals/core through the root tsconfig paths
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const w of waiters) w();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    process: child,
    lines,
    exited,
    output: () => lines.join('\n'),
    stderr: () => err,
    waitForLines(n: number) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out; stderr: ${err}`)), 30_000);
        const check = () => {
          if (lines.length >= n) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (child.exitCode !== null) {
            clearTimeout(timer);
            reject(new Error(`writer exited first: ${err}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

async function runWriter(schema: string, tag: string, count: string, concurrency: string): Promise<string> {
  const child = spawnWriter(schema, tag, count, concurrency);
  const code = await child.exited;
  if (code !== 0) throw new Error(`writer ${tag} exited ${code}: ${child.stderr()}`);
  return child.output();
}
