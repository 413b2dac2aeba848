import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { defineScripts, type DocevalsScripts } from '../src/redis/lua-scripts.js';
import { deleteKeys, uniqueKeyPrefix } from './support/redis-test-keys.js';

// A command whose reply was lost can be sent again by ioredis after a reconnect. The scripts must recognise their
// own earlier write, or updateRecord would apply one change twice (a duplicated append).
describe('redis write scripts sent twice', () => {
  const prefix = uniqueKeyPrefix();
  let client: Redis & DocevalsScripts;
  beforeAll(() => {
    client = defineScripts(new Redis(inject('redisUrl'), { keyPrefix: prefix }));
  });
  afterAll(async () => {
    client.disconnect();
    // A client without keyPrefix: SCAN returns whole keys, which a prefixing client would prefix again.
    const plain = new Redis(inject('redisUrl'));
    expect(await deleteKeys(plain, prefix)).toBe(4);
    plain.disconnect();
  });

  it('reports an insert resent with its token as done, and another writer as a conflict', async () => {
    expect(await client.docevalsInsert('rec:i', 'idx', 'i', 1, '{"n":1}', 'tok-1')).toBe(1);
    expect(await client.docevalsInsert('rec:i', 'idx', 'i', 1, '{"n":1}', 'tok-1')).toBe(1);
    expect(await client.docevalsInsert('rec:i', 'idx', 'i', 1, '{"n":2}', 'tok-2')).toBe(0);
    expect(await client.hget('rec:i', 'json')).toBe('{"n":1}');
  });

  it('reports a replace resent with its token as done without writing twice, and refuses a stale other', async () => {
    await client.docevalsInsert('rec:r', 'idx', 'r', 1, '{"n":0}', 'tok-a');
    expect(await client.docevalsReplace('rec:r', 'idx', 'r', 2, '{"n":1}', 1, 'tok-b')).toBe(2);
    // The same call again (a resend): answered with the version it made, the record unchanged.
    expect(await client.docevalsReplace('rec:r', 'idx', 'r', 2, '{"n":1}', 1, 'tok-b')).toBe(2);
    expect(await client.hget('rec:r', 'v')).toBe('2');
    // Another writer that read version 1 lost the race.
    expect(await client.docevalsReplace('rec:r', 'idx', 'r', 3, '{"n":9}', 1, 'tok-c')).toBe(0);
    // After a further write, the old token no longer counts as current.
    expect(await client.docevalsReplace('rec:r', 'idx', 'r', 3, '{"n":2}', 2, 'tok-d')).toBe(3);
    expect(await client.docevalsReplace('rec:r', 'idx', 'r', 2, '{"n":1}', 1, 'tok-b')).toBe(0);
    expect(await client.hget('rec:r', 'json')).toBe('{"n":2}');
  });

  it('counts a resent retain once and never lets a resent release drop a reference it did not hold', async () => {
    expect(await client.docevalsRetain('file:f', '1', Buffer.from('abc'), 'text/plain', 'r1')).toBe(1);
    expect(await client.docevalsRetain('file:f', '1', Buffer.from('abc'), 'text/plain', 'r1')).toBe(1);
    expect(await client.hget('file:f', 'refs')).toBe('1');
    expect(await client.docevalsRetain('file:f', '0', '', '', 'r2')).toBe(1);
    expect(await client.hget('file:f', 'refs')).toBe('2');
    // One release, sent twice: the second reference (another document's) must survive.
    expect(await client.docevalsRelease('file:f', 'x1')).toBe(1);
    expect(await client.docevalsRelease('file:f', 'x1')).toBe(1);
    expect(await client.hget('file:f', 'refs')).toBe('1');
    expect(await client.hget('file:f', 'bytes')).toBe('abc');
    expect(await client.docevalsRelease('file:f', 'x2')).toBe(1);
    expect(await client.exists('file:f')).toBe(0);
    // A kept file for the cleanup count.
    expect(await client.docevalsRetain('file:g', '1', Buffer.from('g'), 'text/plain', 'g1')).toBe(1);
  });
});
