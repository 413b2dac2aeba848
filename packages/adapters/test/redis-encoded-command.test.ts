import { Buffer } from 'node:buffer';
import { createHash, randomUUID } from 'node:crypto';
import { Command, Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { redisStorage } from '../src/redis/index.js';
import { CommandWriter, encodeCommand, encodedScript, type EncodedScript } from '../src/redis/encoded-command.js';
import { deleteKeys, uniqueKeyPrefix } from './support/redis-test-keys.js';

/** The bytes ioredis itself would write for the command (its string, UTF-8 encoded, or its buffer). */
function ioredisBytes(name: string, args: Array<string | Buffer>): Buffer {
  const command = new Command(name, args);
  const written = command.toWritable({});
  return typeof written === 'string' ? Buffer.from(written, 'utf8') : written;
}

describe('encodeCommand', () => {
  it('writes the bytes ioredis writes: multi-byte text, empty and long arguments, lengths of every width', () => {
    const args = ['abc', '', 'é', '日本語 ✓ 🙂', 'x'.repeat(9), 'y'.repeat(10), 'z'.repeat(100_000), JSON.stringify({ a: 'Ünïcode "q" \\' })];
    expect(encodeCommand('evalsha', args).equals(ioredisBytes('evalsha', args))).toBe(true);
    const many = Array.from({ length: 12 }, (_, i) => `arg-${i}`);
    expect(encodeCommand('evalsha', many).equals(ioredisBytes('evalsha', many))).toBe(true);
    expect(encodeCommand('ping', []).toString('latin1')).toBe('*1\r\n$4\r\nping\r\n');
    // Written as ASCII first: a string whose first characters fill its length in bytes, one at the end, a lone surrogate.
    for (const odd of [['éaé'], ['abc', 'x'.repeat(1000), 'ascii then ü'], ['\ud800'], ['a', '\u0080']]) {
      expect(encodeCommand('evalsha', odd).equals(ioredisBytes('evalsha', odd))).toBe(true);
    }
  });

  it('grows its buffer as arguments come, from an estimate far too small', () => {
    const args = ['x'.repeat(5_000), 'ü'.repeat(3_000), ...Array.from({ length: 500 }, (_, i) => `${i}`), 'é'];
    const writer = new CommandWriter(16).count(args.length + 1).bulk('evalsha');
    for (const arg of args) writer.bulk(arg);
    expect(writer.done().equals(ioredisBytes('evalsha', args))).toBe(true);
  });

  it('copies buffer arguments as they are', () => {
    const args = ['key', Buffer.from([0, 255, 13, 10]), Buffer.alloc(0)];
    expect(encodeCommand('set', args).equals(ioredisBytes('set', args))).toBe(true);
  });
});

/** Runs `script` with `args` (the first `keys` of them keys) written one by one. */
const run = (script: EncodedScript, client: Redis, keys: number, args: string[]) =>
  script.run(client, keys, args.length - keys, 64, (w) => args.forEach((arg) => w.bulk(arg)));

describe('encodedScript on a real Redis', () => {
  const prefix = uniqueKeyPrefix('encoded');
  const plain = new Redis(inject('redisUrl'));
  const prefixed = new Redis(inject('redisUrl'), { keyPrefix: prefix });
  afterAll(async () => {
    await deleteKeys(plain, prefix);
    plain.disconnect();
    prefixed.disconnect();
  });

  it('loads a script the server does not know yet, then runs it by its hash', async () => {
    // A script no one has loaded (its text is new): the first run meets NOSCRIPT, loads it and runs it.
    const lua = `-- ${randomUUID()}\nreturn #KEYS .. ':' .. table.concat(ARGV, ',')`;
    const script = encodedScript(lua);
    expect(await run(script, plain, 2, [`${prefix}a`, `${prefix}b`, 'é', '🙂'])).toBe('2:é,🙂');
    expect(await plain.script('EXISTS', createHash('sha1').update(lua).digest('hex'))).toEqual([1]);
    expect(await run(script, plain, 0, ['again'])).toBe('0:again');
  });

  it("gives the client's key prefix for the caller to put on the keys", async () => {
    const script = encodedScript(`-- ${randomUUID()}\nredis.call('SET', KEYS[1], ARGV[1]) return KEYS[1]`);
    expect(script.keyPrefix(plain)).toBe('');
    expect(await run(script, prefixed, 1, [`${script.keyPrefix(prefixed)}k1`, 'v1'])).toBe(`${prefix}k1`);
    expect(await plain.get(`${prefix}k1`)).toBe('v1');
  });

  it("inserts a batch through a client with its own key prefix: the children land under it, read back, and an id taken fails whole", async () => {
    const storage = redisStorage({ client: prefixed, keyPrefix: 'store:' });
    const record = (id: string, vendor: string) => ({
      id, organization_id: 'org_p', parent_id: 'ev_p', updated_at: new Date(0).toISOString(), filename: `${id}.txt`,
      mime_type: 'text/plain', size: 1, annotation: { vendor }, annotation_metadata: null, revision: 'r.1',
      totals: { unlabeled: 0, similarity: 0.25 },
    });
    await storage.documents.insertMany([record('a', 'Ünïcode ✓'), record('b', 'ascii')]);
    expect((await storage.documents.get('org_p', 'ev_p', 'a'))?.value.annotation).toEqual({ vendor: 'Ünïcode ✓' });
    expect(await storage.documents.totals('org_p', 'ev_p')).toEqual({ count: 2, sums: { unlabeled: 0, similarity: 0.5 } });
    expect((await plain.keys(`${prefix}store:*`)).length).toBeGreaterThan(0);
    await expect(storage.documents.insertMany([record('c', 'x'), record('a', 'again')])).rejects.toThrow();
    expect(await storage.documents.get('org_p', 'ev_p', 'c')).toBeNull();
  });

  it('passes a script error through', async () => {
    const script = encodedScript(`-- ${randomUUID()}\nreturn redis.error_reply('BOOM nope')`);
    await expect(run(script, plain, 0, [])).rejects.toThrow(/BOOM nope/);
  });
});
