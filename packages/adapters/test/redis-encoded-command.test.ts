import { Buffer } from 'node:buffer';
import { createHash, randomUUID } from 'node:crypto';
import { Command, Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { encodeCommand, encodedScript } from '../src/redis/encoded-command.js';
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

  it('copies buffer arguments as they are', () => {
    const args = ['key', Buffer.from([0, 255, 13, 10]), Buffer.alloc(0)];
    expect(encodeCommand('set', args).equals(ioredisBytes('set', args))).toBe(true);
  });
});

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
    expect(await script.run(plain, 2, [`${prefix}a`, `${prefix}b`, 'é', '🙂'])).toBe('2:é,🙂');
    expect(await plain.script('EXISTS', createHash('sha1').update(lua).digest('hex'))).toEqual([1]);
    expect(await script.run(plain, 0, ['again'])).toBe('0:again');
  });

  it("applies the client's key prefix to the keys, not to the arguments", async () => {
    const script = encodedScript(`-- ${randomUUID()}\nredis.call('SET', KEYS[1], ARGV[1]) return KEYS[1]`);
    expect(await script.run(prefixed, 1, ['k1', 'v1'])).toBe(`${prefix}k1`);
    expect(await plain.get(`${prefix}k1`)).toBe('v1');
  });

  it('passes a script error through', async () => {
    const script = encodedScript(`-- ${randomUUID()}\nreturn redis.error_reply('BOOM nope')`);
    await expect(script.run(plain, 0, [])).rejects.toThrow(/BOOM nope/);
  });
});
