import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { Command, type Redis } from 'ioredis';

/**
 * A command written as one buffer, each argument encoded straight into it. ioredis builds a command as one string
 * (`"$" + length + "\r\n" + arg + "\r\n"` per argument) that the socket then flattens (a copy) and encodes (another):
 * for a batch of 10,000 records (10 MB of JSON) that was two fresh 10 MB copies and a rope of 150,000 pieces, and a
 * build's six batches spent more CPU writing the command than Redis spent running it. Same bytes on the wire.
 */
class EncodedCommand extends Command {
  override toWritable(): Buffer {
    return encodeCommand(this.name, this.args as Array<string | Buffer>);
  }
}

const CR = 13;
const LF = 10;

/**
 * The RESP array of bulk strings for `name` and `args`, in one buffer of the exact size. By the time ioredis writes
 * a command its arguments are strings or buffers (`stringifyArguments`).
 */
export function encodeCommand(name: string, args: ReadonlyArray<string | Buffer>): Buffer {
  return encodeAscii(name, args) ?? encodeMeasured(name, args);
}

const utf8 = new TextEncoder();

/**
 * The command when every string argument is ASCII (one byte per character: records' JSON almost always is), without
 * measuring each argument's UTF-8 length first (`Buffer.byteLength` scanned the 10 MB of a batch once more): each is
 * written as if it were, and `null` is answered as soon as one is not (its characters did not fill its bytes exactly).
 */
function encodeAscii(name: string, args: ReadonlyArray<string | Buffer>): Buffer | null {
  let size = 1 + digits(args.length + 1) + 2 + bulkSize(name.length);
  for (const arg of args) size += bulkSize(arg.length);
  const out = Buffer.allocUnsafe(size);
  let at = writeAsciiBulk(out, writeHeader(out, 0, 0x2a /* '*' */, args.length + 1), name);
  for (let i = 0; i < args.length && at >= 0; i++) at = writeAsciiBulk(out, at, args[i]!);
  return at < 0 ? null : out;
}

/** `$<length>\r\n<arg>\r\n` at `at`; the offset after it, or -1 when `arg` is a string that is not ASCII. */
function writeAsciiBulk(out: Buffer, at: number, arg: string | Buffer): number {
  const n = arg.length;
  at = writeHeader(out, at, 0x24 /* '$' */, n);
  if (typeof arg === 'string') {
    const { read, written } = utf8.encodeInto(arg, out.subarray(at, at + n));
    if (read !== n || written !== n) return -1;
    at += n;
  } else at += arg.copy(out, at);
  out[at++] = CR;
  out[at++] = LF;
  return at;
}

/** The command with each string argument's UTF-8 length measured first. */
function encodeMeasured(name: string, args: ReadonlyArray<string | Buffer>): Buffer {
  const lengths = new Array<number>(args.length);
  let size = 1 + digits(args.length + 1) + 2 + bulkSize(Buffer.byteLength(name));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const n = typeof arg === 'string' ? Buffer.byteLength(arg) : arg.length;
    lengths[i] = n;
    size += bulkSize(n);
  }
  const out = Buffer.allocUnsafe(size);
  let at = writeHeader(out, 0, 0x2a /* '*' */, args.length + 1);
  at = writeBulk(out, at, name, Buffer.byteLength(name));
  for (let i = 0; i < args.length; i++) at = writeBulk(out, at, args[i]!, lengths[i]!);
  return out;
}

const digits = (n: number): number => (n < 10 ? 1 : String(n).length);
const bulkSize = (n: number): number => 1 + digits(n) + 2 + n + 2;

/** `<mark><n>\r\n` at `at`; the offset after it. */
function writeHeader(out: Buffer, at: number, mark: number, n: number): number {
  out[at++] = mark;
  const text = String(n);
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  out[at++] = CR;
  out[at++] = LF;
  return at;
}

/** `$<n>\r\n<arg>\r\n` at `at`, `n` being the argument's length in bytes; the offset after it. */
function writeBulk(out: Buffer, at: number, arg: string | Buffer, n: number): number {
  at = writeHeader(out, at, 0x24 /* '$' */, n);
  if (typeof arg === 'string') at += out.write(arg, at, n, 'utf8');
  else at += arg.copy(out, at);
  out[at++] = CR;
  out[at++] = LF;
  return at;
}

/** A Lua script run by EVALSHA as an {@link EncodedCommand}, loaded once when the server does not know it. */
export interface EncodedScript {
  run(client: Redis, numberOfKeys: number, keysAndArgs: string[]): Promise<unknown>;
}

export function encodedScript(lua: string): EncodedScript {
  const sha = createHash('sha1').update(lua).digest('hex');
  return {
    async run(client, numberOfKeys, keysAndArgs) {
      // The client's key prefix (when it has one) is applied to the keys as ioredis does for its own commands.
      const options = { replyEncoding: 'utf8' as const, keyPrefix: client.options.keyPrefix };
      const send = () => client.sendCommand(new EncodedCommand('evalsha', [sha, String(numberOfKeys), ...keysAndArgs], options));
      try {
        return await send();
      } catch (error) {
        // After a restart or SCRIPT FLUSH (or on a fresh server): load it and send again, as ioredis's scripts do.
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        await client.script('LOAD', lua);
        return send();
      }
    },
  };
}
