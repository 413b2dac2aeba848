import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RecordListQuery, type Storage } from '@docevals/core';
import { updateRecord } from '@docevals/core/internal';
import { runStorageConformance } from '@docevals/adapters/conformance';
import { memoryStorage } from '@docevals/adapters/memory';
import { redisStorage } from '@docevals/adapters/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { freePort, startRedisServer, type RedisServerHandle } from '../../../test-support/redis-global-setup.js';
import { evaluationFixture } from './support/redis-fixtures.js';
import { deleteKeys, listKeys, uniqueKeyPrefix } from './support/redis-test-keys.js';
import { retryUntil } from './support/retry-until.js';
import { rejectionOf } from '../../../test-support/rejection.js';

const url = inject('redisUrl');
/** Every key this file writes starts with it; afterAll deletes them. */
const filePrefix = uniqueKeyPrefix('adapter');
let n = 0;
const freshPrefix = () => `${filePrefix}${++n}:`;

const admin = new Redis(url);
/** A host's client, shared by every store of the host-client conformance run. */
const hostClient = new Redis(url);
const prefixOf = new WeakMap<Storage, string>();

afterAll(async () => {
  await deleteKeys(admin, filePrefix);
  hostClient.disconnect();
  await admin.quit();
});

const written = new WeakMap<Storage, { bytes: number }>();
const metered = (keyPrefix: string) => {
  const meter = { bytes: 0 };
  const storage = redisStorage({ url, keyPrefix, onWrite: (w) => void (meter.bytes += w.bytes) });
  written.set(storage, meter);
  prefixOf.set(storage, keyPrefix);
  return storage;
};

runStorageConformance({
  name: 'redis (url)',
  create: () => metered(freshPrefix()),
  reopen: async (previous) => {
    await previous.close();
    return metered(prefixOf.get(previous)!);
  },
  writtenBytes: (storage) => written.get(storage)!.bytes,
});

runStorageConformance({
  name: 'redis (host client)',
  create: () => {
    const keyPrefix = freshPrefix();
    const storage = redisStorage({ client: hostClient, keyPrefix });
    prefixOf.set(storage, keyPrefix);
    return storage;
  },
  reopen: async (previous) => {
    await previous.close();
    const keyPrefix = prefixOf.get(previous)!;
    const storage = redisStorage({ client: hostClient, keyPrefix });
    prefixOf.set(storage, keyPrefix);
    return storage;
  },
});

/** Resolves to what `promise` rejected with; fails when it resolved. */
const failure = (promise: Promise<unknown>) => rejectionOf(promise);
/** Retries `probe` until it resolves (the adapter reconnects by itself in the background). */
const eventually = <T>(probe: () => Promise<T>) => retryUntil(probe, { timeoutMs: 10_000, pollMs: 50 });

async function clientIdsNamed(name: string): Promise<string[]> {
  const list = (await admin.client('LIST')) as string;
  return list
    .split('\n')
    .filter((line) => line.includes(` name=${name} `))
    .map((line) => /(?:^|\s)id=(\d+)/.exec(line)![1]);
}

describe('redisStorage', () => {
  it('refuses options with neither or both of client and url', () => {
    expect(() => redisStorage({})).toThrow(expect.objectContaining({ code: 'validation_error' }));
    expect(() => redisStorage({ url, client: hostClient })).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });

  it('keeps the documented key layout, with organization ids escaped', async () => {
    const keyPrefix = freshPrefix();
    const storage = redisStorage({ client: hostClient, keyPrefix });
    const org = 'acme:{eu}/ü %';
    const record = evaluationFixture(org, 'eval_1');
    await storage.evaluations.insert(record);
    await storage.files.retain(org, 'file_1', { bytes: Uint8Array.from([0, 255, 10]), mime_type: 'application/pdf' });
    const base = `${keyPrefix}{acme%003a%007beu%007d%002f%00fc%0020%0025}:`;
    expect(await listKeys(admin, keyPrefix)).toEqual([`${base}eval:eval_1`, `${base}evals`, `${base}file:file_1`]);
    expect(await admin.hget(`${base}eval:eval_1`, 'v')).toBe('1');
    expect(JSON.parse((await admin.hget(`${base}eval:eval_1`, 'json'))!)).toEqual(record);
    expect(await admin.hget(`${base}eval:eval_1`, 's:project_id')).toBe('proj_redis');
    expect(await admin.zscore(`${base}evals`, 'eval_1')).toBe(String(Date.parse(record.updated_at)));
    expect(await admin.hgetall(`${base}file:file_1`)).toMatchObject({ mime_type: 'application/pdf', refs: '1' });
    expect(await admin.hgetBuffer(`${base}file:file_1`, 'bytes')).toEqual(Buffer.from([0, 255, 10]));
    // An organization whose id looks like another's keys reads nothing of it.
    expect(await storage.evaluations.get('acme', 'eval_1')).toBeNull();
    expect(await storage.evaluations.get(`acme:{eu}/ü %}:eval:eval_1`, 'eval_1')).toBeNull();
    await storage.close();
  });

  it('leaves a host client open on close(), and refuses to work once closed', async () => {
    const client = new Redis(url);
    const storage = redisStorage({ client, keyPrefix: freshPrefix() });
    await storage.evaluations.insert(evaluationFixture('org_1', 'eval_1'));
    await storage.close();
    await storage.close();
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
    expect(await failure(storage.evaluations.get('org_1', 'eval_1'))).toMatchObject({ code: 'storage_error' });
    await client.quit();
  });

  it('quits its own connection on close() in url mode', async () => {
    const connectionName = `docevals_test_${Math.random().toString(36).slice(2)}`;
    const storage = redisStorage({ url, keyPrefix: freshPrefix(), redisOptions: { connectionName } });
    // lazyConnect: no connection before the first operation.
    expect(await clientIdsNamed(connectionName)).toEqual([]);
    await storage.evaluations.insert(evaluationFixture('org_1', 'eval_1'));
    expect(await clientIdsNamed(connectionName)).toHaveLength(1);
    await storage.close();
    await storage.close();
    await eventually(async () => expect(await clientIdsNamed(connectionName)).toEqual([]));
    expect(await failure(storage.evaluations.get('org_1', 'eval_1'))).toMatchObject({ code: 'storage_error' });
  });

  it('reads many records in one round trip, in the order asked, null for the missing', async () => {
    const client = new Redis(url);
    const storage = redisStorage({ client, keyPrefix: freshPrefix() });
    for (const id of ['e1', 'e2', 'e3']) await storage.evaluations.insert(evaluationFixture('org_1', id));
    // ioredis writes a whole pipeline to the socket at once: one write is one round trip.
    const socket = (client as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
    const writes = vi.spyOn(socket, 'write');
    const many = await storage.evaluations.getMany('org_1', ['e3', 'nope', 'e1', 'e2']);
    expect(writes).toHaveBeenCalledTimes(1);
    writes.mockRestore();
    expect(many.map((r) => r?.value.id ?? null)).toEqual(['e3', null, 'e1', 'e2']);
    expect(many[0]).toEqual({ value: evaluationFixture('org_1', 'e3', { updatedAt: many[0]!.value.updated_at }), version: 1 });
    await storage.close();
    await client.quit();
  });

  it('filters a long list by string fields without reading every record, and pages by cursor', async () => {
    const storage = redisStorage({ url, keyPrefix: freshPrefix() });
    const start = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 250; i++) {
      const record = evaluationFixture('org_1', `e${String(i).padStart(3, '0')}`, { updatedAt: new Date(start + i * 1000).toISOString() });
      await storage.evaluations.insert({ ...record, project_id: i % 50 === 7 ? 'rare' : 'common' });
    }
    const first = await storage.evaluations.list('org_1', { limit: 2, order: 'desc', where: { project_id: 'rare' } });
    expect(first!.items.map((r) => r.id)).toEqual(['e207', 'e157']);
    expect(first!.has_more).toBe(true);
    const second = await storage.evaluations.list('org_1', { limit: 2, order: 'desc', after: 'e157', where: { project_id: 'rare' } });
    expect(second!.items.map((r) => r.id)).toEqual(['e107', 'e057']);
    expect(second!.has_more).toBe(true);
    const back = await storage.evaluations.list('org_1', { limit: 2, order: 'desc', before: 'e107', where: { project_id: 'rare' } });
    expect(back).toEqual({ items: first!.items, has_more: false });
    const last = await storage.evaluations.list('org_1', { limit: 5, order: 'desc', after: 'e057', where: { project_id: 'rare' } });
    expect(last).toEqual({ items: [expect.objectContaining({ id: 'e007' })], has_more: false });
    await storage.close();
  });
  it('pages exactly like the memory adapter, for random data, cursors (one, both), filters and limits', async () => {
    const redis = redisStorage({ url, keyPrefix: freshPrefix() });
    const memory = memoryStorage();
    // mulberry32: seeded, so that a failure can be replayed (an LCG's low bits would correlate the choices).
    let seed = 42;
    const random = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    };
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const id = `eval_${random(2) ? 'A' : 'a'}${String(i).padStart(2, '0')}`;
      ids.push(id);
      // Few distinct timestamps, so that ties (broken by id) are common.
      const record = { ...evaluationFixture('org_1', id, { updatedAt: new Date(Date.UTC(2026, 0, 1) + random(8) * 1000).toISOString() }), project_id: `p${random(3)}` };
      await redis.evaluations.insert(record);
      await memory.evaluations.insert(record);
    }
    for (let i = 0; i < 15; i++) {
      const id = ids[random(ids.length)];
      const current = (await memory.evaluations.get('org_1', id))?.value;
      if (!current) continue;
      if (random(3) === 0) {
        await redis.evaluations.delete('org_1', id);
        await memory.evaluations.delete('org_1', id);
      } else {
        const next = { ...current, updated_at: new Date(Date.UTC(2026, 0, 1) + random(10) * 1000).toISOString() };
        await redis.evaluations.replace(next, (await redis.evaluations.get('org_1', id))!.version);
        await memory.evaluations.replace(next, (await memory.evaluations.get('org_1', id))!.version);
      }
    }
    let nonEmpty = 0;
    let between = 0;
    for (let q = 0; q < 400; q++) {
      const query: RecordListQuery = { limit: 1 + random(12), order: random(2) ? 'asc' : 'desc' };
      const cursors = random(4);
      if (cursors === 1 || cursors === 3) query.after = ids[random(ids.length)];
      if (cursors === 2 || cursors === 3) query.before = ids[random(ids.length)];
      if (random(2)) query.where = { project_id: `p${random(3)}` };
      const expected = await memory.evaluations.list('org_1', query);
      const actual = await redis.evaluations.list('org_1', query);
      if (expected && expected.items.length > 0) {
        nonEmpty++;
        if (query.after && query.before) between++;
      }
      expect({ query, page: actual && { ids: actual.items.map((r) => r.id), has_more: actual.has_more } }).toEqual({
        query,
        page: expected && { ids: expected.items.map((r) => r.id), has_more: expected.has_more },
      });
    }
    // The comparison proves something only if many pages had records, some between two cursors.
    expect(nonEmpty).toBeGreaterThan(150);
    expect(between).toBeGreaterThan(10);
    await redis.close();
  });

  it('works on a host client that has a keyPrefix of its own, which comes first', async () => {
    const client = new Redis(url, { keyPrefix: `${filePrefix}host:` });
    const storage = redisStorage({ client, keyPrefix: 'inner:' });
    await storage.evaluations.insert(evaluationFixture('org_1', 'eval_1'));
    await storage.files.retain('org_1', 'file_1', { bytes: Uint8Array.from([1]), mime_type: 'image/png' });
    expect((await storage.evaluations.list('org_1', { limit: 10, order: 'asc' }))!.items.map((r) => r.id)).toEqual(['eval_1']);
    expect(await listKeys(admin, `${filePrefix}host:`)).toEqual([
      `${filePrefix}host:inner:{org_1}:eval:eval_1`,
      `${filePrefix}host:inner:{org_1}:evals`,
      `${filePrefix}host:inner:{org_1}:file:file_1`,
    ]);
    await storage.close();
    await client.quit();
  });
});

describe('redisStorage when Redis is unreachable or goes away', () => {
  it('fails fast with storage_error and the connection error as cause when nothing listens', async () => {
    const port = await freePort(); // free = closed: nothing listens there
    const storage = redisStorage({ url: `redis://127.0.0.1:${port}`, keyPrefix: freshPrefix() });
    const started = Date.now();
    const error = await failure(storage.evaluations.get('org_1', 'eval_1'));
    expect(error).toMatchObject({ code: 'storage_error', message: expect.stringContaining('evaluations.get') });
    expect(error.cause).toMatchObject({ code: 'ECONNREFUSED' });
    // While ioredis reconnects in the background, further operations are refused at once.
    const again = await failure(storage.files.get('org_1', 'file_1'));
    expect(again).toMatchObject({ code: 'storage_error', cause: expect.objectContaining({ code: 'ECONNREFUSED' }) });
    expect(Date.now() - started).toBeLessThan(2_000);
    await storage.close();
  });

  it('fails fast on a host client set up as the docs advise (no offline queue, no retries)', async () => {
    const port = await freePort();
    const client = new Redis(`redis://127.0.0.1:${port}`, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    client.on('error', () => {}); // the host's business: the adapter adds no listener to a host's client
    const storage = redisStorage({ client, keyPrefix: freshPrefix() });
    const started = Date.now();
    expect(await failure(storage.evaluations.insert(evaluationFixture('org_1', 'eval_1')))).toMatchObject({ code: 'storage_error' });
    expect(await failure(storage.files.retain('org_1', 'file_1'))).toMatchObject({ code: 'storage_error' });
    expect(Date.now() - started).toBeLessThan(1_000);
    await storage.close();
    client.disconnect();
  });

  it('reports a killed connection as storage_error and works again after reconnecting', async () => {
    const connectionName = `docevals_kill_${Math.random().toString(36).slice(2)}`;
    const storage = redisStorage({ url, keyPrefix: freshPrefix(), redisOptions: { connectionName } });
    const record = evaluationFixture('org_1', 'eval_1');
    await storage.evaluations.insert(record);
    const [id] = await clientIdsNamed(connectionName);
    const inFlight = Array.from({ length: 20 }, () => storage.evaluations.get('org_1', 'eval_1').then(
      () => 'ok',
      (error: { code?: string }) => error.code,
    ));
    await admin.client('KILL', 'ID', id);
    const outcomes = await Promise.all([...inFlight, storage.evaluations.get('org_1', 'eval_1').then(() => 'ok', (e) => e.code)]);
    expect(outcomes.every((o) => o === 'ok' || o === 'storage_error')).toBe(true);
    expect(outcomes).toContain('storage_error');
    expect(await eventually(() => storage.evaluations.get('org_1', 'eval_1'))).toEqual({ value: record, version: 1 });
    await storage.close();
  });

  describe('a Redis of its own, stopped and restarted mid-use', () => {
    let server: RedisServerHandle;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'docevals-redis-restart-'));
      server = await startRedisServer({ dir, extraArgs: ['--appendonly', 'yes', '--appendfsync', 'always'] });
    });
    afterAll(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('fails in-flight and new operations with storage_error, then finds every acknowledged write', async () => {
      const storage = redisStorage({ url: server.url, keyPrefix: freshPrefix() });
      await storage.evaluations.insert(evaluationFixture('org_1', 'eval_1'));
      const acknowledged: string[] = [];
      const failures: string[] = [];
      const append = async (tag: string) => {
        try {
          await updateRecord(storage.evaluations, 'org_1', 'eval_1', (current) => ({
            write: { ...current, iteration_ids: [...current.iteration_ids, tag], updated_at: new Date().toISOString() },
            result: undefined,
          }));
          acknowledged.push(tag);
        } catch (error) {
          failures.push((error as { code?: string }).code ?? String(error));
          // A refused operation fails within microtasks; without a pause this loop would starve the timers.
          await new Promise((r) => setTimeout(r, 5));
        }
      };
      // Four writers appending continuously; Redis goes away under them.
      let stop = false;
      let counter = 0;
      const writers = Array.from({ length: 4 }, async () => {
        while (!stop) await append(`it_${counter++}`);
      });
      await eventually(async () => expect(acknowledged.length).toBeGreaterThan(20));
      const stoppedAt = Date.now();
      await server.stop();
      await eventually(async () => expect(failures.length).toBeGreaterThan(3));
      expect(Date.now() - stoppedAt).toBeLessThan(3_000);
      stop = true;
      await Promise.all(writers);
      expect(new Set(failures)).toEqual(new Set(['storage_error']));
      expect(await failure(storage.evaluations.get('org_1', 'eval_1'))).toMatchObject({ code: 'storage_error' });

      server = await startRedisServer({ port: server.port, dir, extraArgs: ['--appendonly', 'yes', '--appendfsync', 'always'] });
      const back = await eventually(() => storage.evaluations.get('org_1', 'eval_1'));
      // An acknowledged write is never lost; one whose reply was cut may or may not have landed, never twice.
      expect(back!.value.iteration_ids).toEqual(expect.arrayContaining(acknowledged));
      expect(new Set(back!.value.iteration_ids).size).toBe(back!.value.iteration_ids.length);
      expect(back!.version).toBe(back!.value.iteration_ids.length + 1);
      await append('after_restart');
      expect((await storage.evaluations.get('org_1', 'eval_1'))!.value.iteration_ids.at(-1)).toBe('after_restart');
      await storage.close();
    });
  });
});

describe('redisStorage across processes', () => {
  it('loses none of 2 × 100 appends made by two processes to one evaluation', async () => {
    const keyPrefix = freshPrefix();
    const storage = redisStorage({ url, keyPrefix });
    await storage.evaluations.insert(evaluationFixture('org_1', 'eval_shared'));
    const writer = fileURLToPath(new URL('./support/redis-writer.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const run = (tag: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', writer, url, keyPrefix, 'org_1', 'eval_shared', '100', tag, '4'], {
          cwd: root, // tsx resolves @docevals/core through the root tsconfig paths
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.once('error', reject);
        child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`writer ${tag} exited ${code}: ${err}`))));
      });
    const outputs = await Promise.all([run('a'), run('b')]);
    const stored = await storage.evaluations.get('org_1', 'eval_shared');
    const ids = stored!.value.iteration_ids;
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    for (const tag of ['a', 'b']) for (let i = 0; i < 100; i++) expect(ids).toContain(`${tag}-${i}`);
    expect(stored!.version).toBe(201);
    // The two writers did contend (otherwise this test proves nothing about compare-and-set).
    const retries = outputs.map((o) => JSON.parse(o).retries as number);
    expect(retries.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    await storage.close();
  }, 60_000);
});
