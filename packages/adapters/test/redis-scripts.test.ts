import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { redisStorage } from '../src/redis/index.js';
import { defineScripts, type DocevalsScripts } from '../src/redis/lua-scripts.js';
import { deleteKeys, uniqueKeyPrefix } from './support/redis-test-keys.js';

// A command whose reply was lost can be sent again by ioredis after a reconnect. The scripts must recognise their
// own earlier write, or updateRecord would apply one change twice (a duplicated append).
/**
 * A client with the docevals scripts under a key prefix of its own, for one `describe`; after it, the keys under the
 * prefix are deleted and their count handed to `checkLeft`.
 */
function scriptsClient(checkLeft?: (count: number) => void): () => Redis & DocevalsScripts {
  const prefix = uniqueKeyPrefix();
  let client: Redis & DocevalsScripts;
  beforeAll(() => {
    client = defineScripts(new Redis(inject('redisUrl'), { keyPrefix: prefix }));
  });
  afterAll(async () => {
    client.disconnect();
    // A client without keyPrefix: SCAN returns whole keys, which a prefixing client would prefix again.
    const plain = new Redis(inject('redisUrl'));
    const deleted = await deleteKeys(plain, prefix);
    plain.disconnect();
    checkLeft?.(deleted);
  });
  return () => client;
}

describe('redis write scripts sent twice', () => {
  const client = scriptsClient((left) => expect(left).toBe(4));

  it('reports an insert resent with its token as done, and another writer as a conflict', async () => {
    expect(await client().docevalsInsert('rec:i', 'idx', 'i', 1, '{"n":1}', 'tok-1')).toBe(1);
    expect(await client().docevalsInsert('rec:i', 'idx', 'i', 1, '{"n":1}', 'tok-1')).toBe(1);
    expect(await client().docevalsInsert('rec:i', 'idx', 'i', 1, '{"n":2}', 'tok-2')).toBe(0);
    expect(await client().hget('rec:i', 'json')).toBe('{"n":1}');
  });

  it('reports a replace resent with its token as done without writing twice, and refuses a stale other', async () => {
    await client().docevalsInsert('rec:r', 'idx', 'r', 1, '{"n":0}', 'tok-a');
    expect(await client().docevalsReplace('rec:r', 'idx', 'r', 2, '{"n":1}', 1, 'tok-b')).toBe(2);
    // The same call again (a resend): answered with the version it made, the record unchanged.
    expect(await client().docevalsReplace('rec:r', 'idx', 'r', 2, '{"n":1}', 1, 'tok-b')).toBe(2);
    expect(await client().hget('rec:r', 'v')).toBe('2');
    // Another writer that read version 1 lost the race.
    expect(await client().docevalsReplace('rec:r', 'idx', 'r', 3, '{"n":9}', 1, 'tok-c')).toBe(0);
    // After a further write, the old token no longer counts as current.
    expect(await client().docevalsReplace('rec:r', 'idx', 'r', 3, '{"n":2}', 2, 'tok-d')).toBe(3);
    expect(await client().docevalsReplace('rec:r', 'idx', 'r', 2, '{"n":1}', 1, 'tok-b')).toBe(0);
    expect(await client().hget('rec:r', 'json')).toBe('{"n":2}');
  });

  it('counts a resent retain once and never lets a resent release drop a reference it did not hold', async () => {
    expect(await client().docevalsRetain('file:f', '1', Buffer.from('abc'), 'text/plain', 'r1')).toBe(1);
    expect(await client().docevalsRetain('file:f', '1', Buffer.from('abc'), 'text/plain', 'r1')).toBe(1);
    expect(await client().hget('file:f', 'refs')).toBe('1');
    expect(await client().docevalsRetain('file:f', '0', '', '', 'r2')).toBe(1);
    expect(await client().hget('file:f', 'refs')).toBe('2');
    // One release, sent twice: the second reference (another document's) must survive.
    expect(await client().docevalsRelease('file:f', 'x1')).toBe(1);
    expect(await client().docevalsRelease('file:f', 'x1')).toBe(1);
    expect(await client().hget('file:f', 'refs')).toBe('1');
    expect(await client().hget('file:f', 'bytes')).toBe('abc');
    expect(await client().docevalsRelease('file:f', 'x2')).toBe(1);
    expect(await client().exists('file:f')).toBe(0);
    // A kept file for the cleanup count.
    expect(await client().docevalsRetain('file:g', '1', Buffer.from('g'), 'text/plain', 'g1')).toBe(1);
  });
});

describe('redis child and batch scripts sent twice', () => {
  const client = scriptsClient();

  it('counts a resent child put once: same version, totals moved once', async () => {
    expect(await client().docevalsChildPut('c:a', 'order', 'totals', 'a', '{"n":1}', '', 'put-1', '["sim","0.5"]')).toBe(1);
    expect(await client().docevalsChildPut('c:a', 'order', 'totals', 'a', '{"n":1}', '', 'put-1', '["sim","0.5"]')).toBe(1);
    expect(await client().docevalsChildPut('c:a', 'order', 'totals', 'a', '{"n":2}', '1', 'put-2', '["sim","0.25"]')).toBe(2);
    expect(await client().docevalsChildPut('c:a', 'order', 'totals', 'a', '{"n":2}', '1', 'put-2', '["sim","0.25"]')).toBe(2);
    // Another writer naming the old version is refused.
    expect(await client().docevalsChildPut('c:a', 'order', 'totals', 'a', '{"n":3}', '1', 'put-3', '["sim","0.9"]')).toBe(0);
    expect(await client().hgetall('totals')).toMatchObject({ count: '1', 's:sim': '0.25' });
  });

  it('counts a resent insertMany once, and refuses another batch naming a taken id without writing any of it', async () => {
    const keys = ['m:x', 'm:y'];
    // Token, the batch's summed totals (1 pair), then per child: id, json, its totals pairs as JSON.
    const args = ['batch-1', '1', 'sim', '3', 'x', '{"x":1}', '["sim","1"]', 'y', '{"y":1}', '["sim","2"]'];
    expect(await client().docevalsChildInsertMany(2 + keys.length, ['morder', 'mtotals', ...keys, ...args])).toBe(1);
    expect(await client().docevalsChildInsertMany(2 + keys.length, ['morder', 'mtotals', ...keys, ...args])).toBe(1);
    expect(await client().docevalsChildInsertMany(4, ['morder', 'mtotals', 'm:z', 'm:y', 'batch-2', '0', 'z', '{}', '[]', 'y', '{}', '[]'])).toBe(-2);
    expect(await client().exists('m:z')).toBe(0);
    expect(await client().hgetall('mtotals')).toMatchObject({ count: '2', 's:sim': '3', seq: '2' });
    expect(await client().zrange('morder', '0', '-1')).toEqual(['x', 'y']);
    // Each child keeps its own pairs, which a later delete subtracts.
    expect(await client().hget('m:y', 't')).toBe('["sim","2"]');
    expect(await client().docevalsChildDelete('m:y', 'morder', 'mtotals', 'y', '')).toBe(1);
    expect(await client().hgetall('mtotals')).toMatchObject({ count: '1', 's:sim': '1' });
  });

  it('counts a resent putMany once (same versions, totals moved once) and names the stale entries of another batch', async () => {
    const keys = ['p:x', 'p:y'];
    // x inserted (expected 0), y upserted; then both replaced at version 1, sent twice. Per child: id, json,
    // expected version, its totals pairs as one JSON array.
    const first = ['pm-1', 'x', '{"x":1}', '0', '["sim","1"]', 'y', '{"y":1}', '', '["sim","2"]'];
    expect(await client().docevalsChildPutMany(2 + keys.length, ['porder', 'ptotals', ...keys, ...first])).toEqual([1, 1, 1]);
    const second = ['pm-2', 'x', '{"x":2}', '1', '["sim","0.5"]', 'y', '{"y":2}', '1', '["sim","0.25"]'];
    expect(await client().docevalsChildPutMany(2 + keys.length, ['porder', 'ptotals', ...keys, ...second])).toEqual([1, 2, 2]);
    expect(await client().docevalsChildPutMany(2 + keys.length, ['porder', 'ptotals', ...keys, ...second])).toEqual([1, 2, 2]);
    expect(await client().hgetall('ptotals')).toMatchObject({ count: '2', 's:sim': '0.75', seq: '2' });
    // Another batch naming version 1 of y and version 2 of x: y is stale (index 2, 1-based), nothing written.
    const stale = ['pm-3', 'x', '{"x":3}', '2', '[]', 'y', '{"y":3}', '1', '[]'];
    expect(await client().docevalsChildPutMany(2 + keys.length, ['porder', 'ptotals', ...keys, ...stale])).toEqual([0, 2]);
    expect(await client().hget('p:x', 'json')).toBe('{"x":2}');
    expect(await client().hgetall('ptotals')).toMatchObject({ count: '2', 's:sim': '0.75' });
    // Each child keeps its own pairs, which its next write or its delete subtracts.
    expect(await client().hget('p:y', 't')).toBe('["sim","0.25"]');
    expect(await client().docevalsChildDelete('p:y', 'porder', 'ptotals', 'y', '')).toBe(1);
    expect(await client().hgetall('ptotals')).toMatchObject({ count: '1', 's:sim': '0.5' });
  });

  it('counts a resent retainMany / releaseMany once (the batch marker), a file twice in one batch twice', async () => {
    const args = ['tok-r', '1', '1', Buffer.from('A'), 'text/plain', '0', '', ''];
    expect(await client().docevalsRetainMany(3, ['batch:r', 'f:a', 'f:a', ...args])).toBe('11');
    expect(await client().docevalsRetainMany(3, ['batch:r', 'f:a', 'f:a', ...args])).toBe('11');
    expect(await client().hget('f:a', 'refs')).toBe('2');
    await client().docevalsReleaseMany(2, ['batch:q', 'f:a']);
    await client().docevalsReleaseMany(2, ['batch:q', 'f:a']);
    expect(await client().hget('f:a', 'refs')).toBe('1');
  });
});

describe('batches larger than a JavaScript call can spread', () => {
  it('inserts, totals and deletes 20,000 children of one parent in one script each', async () => {
    const storage = redisStorage({ url: inject('redisUrl'), keyPrefix: `big-batch-${Date.now()}:` });
    try {
      const records = Array.from({ length: 20_000 }, (_, i) => ({
        id: `doc_${i}`,
        organization_id: 'org_big',
        parent_id: 'eval_big',
        updated_at: new Date(0).toISOString(),
        filename: `${i}.txt`,
        mime_type: 'text/plain',
        size: 1,
        annotation: {},
        annotation_metadata: null,
        revision: 'r.1',
        totals: { one: 1 },
      }));
      await storage.documents.insertMany(records);
      expect(await storage.documents.totals('org_big', 'eval_big')).toEqual({ count: 20_000, sums: { one: 20_000 } });
      await storage.documents.insertMany([{ ...records[0]!, id: 'doc_zero', totals: { one: 0, two: 2 } }]);
      expect(await storage.documents.totals('org_big', 'eval_big')).toEqual({ count: 20_001, sums: { one: 20_000, two: 2 } });
      // Its stored pairs leave out the zero, so deleting it still takes away exactly what it added.
      expect(await storage.documents.delete('org_big', 'eval_big', 'doc_zero')).toBe(true);
      expect(await storage.documents.totals('org_big', 'eval_big')).toEqual({ count: 20_000, sums: { one: 20_000, two: 0 } });
      await storage.files.retainMany('org_big', records.map((r) => ({ fileId: r.id, content: { bytes: new Uint8Array([1]), mime_type: 'text/plain' } })));
      await storage.files.releaseMany('org_big', records.map((r) => r.id));
      expect(await storage.files.get('org_big', 'doc_0')).toBeNull();
      expect(await storage.documents.deleteAll('org_big', 'eval_big')).toBe(20_000);
    } finally {
      await storage.close();
    }
  }, 60_000);
});

describe('redis insertMany script over several slices of keys', () => {
  const client = scriptsClient();
  // The script checks ids and appends to the order 500 at a time: a batch spanning slices must name the exact child
  // whose id is taken (nothing written), and append every child in order.
  const batch = (token: string, ids: string[]) => {
    const args = [token, '1', 'n', String(ids.length)];
    for (const id of ids) args.push(id, `{"id":"${id}"}`, '["n","1"]');
    const keysAndArgs: string[] = ['order', 'totals', ...ids.map((id) => `c:${id}`), ...args];
    return [2 + ids.length, keysAndArgs] as const;
  };

  it('refuses a batch whose 1,101st id is taken, then writes 1,201 children in their order', async () => {
    const ids = Array.from({ length: 1_201 }, (_, i) => `k${i}`);
    await client().hset('c:k1100', 'v', '1');
    expect(await client().docevalsChildInsertMany(...batch('slices-1', ids))).toBe(-1_101);
    expect(await client().exists('c:k0', 'c:k1200', 'order', 'totals')).toBe(0);
    await client().del('c:k1100');
    expect(await client().docevalsChildInsertMany(...batch('slices-2', ids))).toBe(1);
    expect(await client().zrange('order', '0', '-1')).toEqual(ids);
    expect(await client().zscore('order', 'k1200')).toBe('1201');
    expect(await client().hgetall('totals')).toMatchObject({ count: '1201', seq: '1201', 's:n': '1201' });
    expect(await client().hget('c:k600', 'json')).toBe('{"id":"k600"}');
  });
});
