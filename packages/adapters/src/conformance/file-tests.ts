import type { StoredFile } from '@docevals/core';
import { expect, it } from 'vitest';
import { type ConformanceContext, tamper } from './context.js';
import { allByteValues, byteList, ORG_A, ORG_B, pseudoRandomBytes } from './fixtures.js';

const PDF = 'application/pdf';
const PNG = 'image/png';

function file(bytes: Uint8Array | number[], mime_type = PDF): StoredFile {
  return { bytes: bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes), mime_type };
}

/** Reads a file as plain values (byte list + mime type), or null. */
async function read(get: Promise<StoredFile | null>): Promise<{ bytes: number[]; mime_type: string } | null> {
  const stored = await get;
  if (stored === null) return null;
  expect(stored.bytes).toBeInstanceOf(Uint8Array);
  return { bytes: byteList(stored.bytes), mime_type: stored.mime_type };
}

/** The content-addressed, reference-counted file store. */
export function fileTests(ctx: ConformanceContext): void {
  for (const group of [fileContentTests, fileReferenceTests]) group(ctx);
}

/** What a file store keeps of the bytes it is given. */
function fileContentTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('stores a file on its first retain and gives back its bytes and media type', async () => {
    const { files } = await ctx.open();
    expect(await files.get(ORG_A, 'file_1')).toBeNull();
    expect(await files.retain(ORG_A, 'file_1', file([1, 2, 3]))).toBe(true);
    expect(await read(files.get(ORG_A, 'file_1'))).toEqual({ bytes: [1, 2, 3], mime_type: PDF });
  }, t);

  it('round-trips bytes exactly: every byte value, a large file, an empty file', async () => {
    const { files } = await ctx.open();
    const every = allByteValues();
    const large = pseudoRandomBytes(300_000, 7);
    await files.retain(ORG_A, 'file_every', file(every, 'application/octet-stream'));
    await files.retain(ORG_A, 'file_large', file(large, PNG));
    await files.retain(ORG_A, 'file_empty', file(new Uint8Array(0), 'text/plain'));
    expect(await read(files.get(ORG_A, 'file_every'))).toEqual({ bytes: byteList(every), mime_type: 'application/octet-stream' });
    const got = await files.get(ORG_A, 'file_large');
    expect(got!.bytes.length).toBe(large.length);
    expect(Buffer.compare(Buffer.from(got!.bytes), Buffer.from(large))).toBe(0);
    expect(await read(files.get(ORG_A, 'file_empty'))).toEqual({ bytes: [], mime_type: 'text/plain' });
  }, t);

  it('stores only the bytes a view shows, not the whole buffer behind it', async () => {
    const { files } = await ctx.open();
    const whole = Buffer.from(allByteValues());
    await files.retain(ORG_A, 'file_view', file(whole.subarray(10, 20)));
    expect(await read(files.get(ORG_A, 'file_view'))).toEqual({ bytes: byteList(allByteValues().subarray(10, 20)), mime_type: PDF });
  }, t);

  it('retain without content of an unknown file answers false and stores nothing', async () => {
    const { files } = await ctx.open();
    expect(await files.retain(ORG_A, 'file_unknown')).toBe(false);
    expect(await files.get(ORG_A, 'file_unknown')).toBeNull();
    // Had it counted a reference, this content would be ignored as "already stored" or the file would outlive one release.
    expect(await files.retain(ORG_A, 'file_unknown', file([9]))).toBe(true);
    await files.release(ORG_A, 'file_unknown');
    expect(await files.get(ORG_A, 'file_unknown')).toBeNull();
  }, t);
}

/** Reference counts, copies and organizations. */
function fileReferenceTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('keeps a file while references remain: retained twice, released once it stays, released again it is gone', async () => {
    const { files } = await ctx.open();
    expect(await files.retain(ORG_A, 'file_1', file([1, 2, 3]))).toBe(true);
    expect(await files.retain(ORG_A, 'file_1')).toBe(true);
    await files.release(ORG_A, 'file_1');
    expect(await read(files.get(ORG_A, 'file_1'))).toEqual({ bytes: [1, 2, 3], mime_type: PDF });
    await files.release(ORG_A, 'file_1');
    expect(await files.get(ORG_A, 'file_1')).toBeNull();
    expect(await files.retain(ORG_A, 'file_1')).toBe(false);
  }, t);

  it('never rewrites the content of a stored file on a later retain', async () => {
    const { files } = await ctx.open();
    await files.retain(ORG_A, 'file_1', file([1, 2, 3]));
    expect(await files.retain(ORG_A, 'file_1', file([7, 7, 7, 7], PNG))).toBe(true);
    expect(await read(files.get(ORG_A, 'file_1'))).toEqual({ bytes: [1, 2, 3], mime_type: PDF });
    // The second retain still counted: two releases are needed.
    await files.release(ORG_A, 'file_1');
    expect(await read(files.get(ORG_A, 'file_1'))).toEqual({ bytes: [1, 2, 3], mime_type: PDF });
    await files.release(ORG_A, 'file_1');
    expect(await files.get(ORG_A, 'file_1')).toBeNull();
  }, t);

  it('releasing an unknown or already deleted file does nothing, and counts never go below zero', async () => {
    const { files } = await ctx.open();
    await files.release(ORG_A, 'file_unknown');
    await files.retain(ORG_A, 'file_1', file([1]));
    await files.release(ORG_A, 'file_1');
    await files.release(ORG_A, 'file_1');
    await files.release(ORG_A, 'file_1');
    expect(await files.get(ORG_A, 'file_1')).toBeNull();
    // Stored afresh with one reference: one release removes it again.
    expect(await files.retain(ORG_A, 'file_1', file([2], PNG))).toBe(true);
    expect(await read(files.get(ORG_A, 'file_1'))).toEqual({ bytes: [2], mime_type: PNG });
    await files.release(ORG_A, 'file_1');
    expect(await files.get(ORG_A, 'file_1')).toBeNull();
  }, t);

  it('hands out copies: changing given or returned bytes does not change the stored file', async () => {
    const { files } = await ctx.open();
    const given = Uint8Array.from([1, 2, 3]);
    await files.retain(ORG_A, 'file_1', { bytes: given, mime_type: PDF });
    given[0] = 99;
    const got = await files.get(ORG_A, 'file_1');
    tamper(() => { got!.bytes[1] = 99; });
    tamper(() => { got!.mime_type = PNG; });
    expect(await read(files.get(ORG_A, 'file_1'))).toEqual({ bytes: [1, 2, 3], mime_type: PDF });
  }, t);

  it('another organization neither sees, retains, releases nor replaces a file under the same id', async () => {
    const { files } = await ctx.open();
    await files.retain(ORG_A, 'file_1', file([1, 2, 3]));
    expect(await files.get(ORG_B, 'file_1')).toBeNull();
    expect(await files.retain(ORG_B, 'file_1')).toBe(false);
    await files.release(ORG_B, 'file_1');
    await files.release(ORG_B, 'file_1');
    expect(await read(files.get(ORG_A, 'file_1'))).toEqual({ bytes: [1, 2, 3], mime_type: PDF });

    // B stores its own content under the same id; each organization keeps its own.
    expect(await files.retain(ORG_B, 'file_1', file([4, 5], PNG))).toBe(true);
    expect(await read(files.get(ORG_A, 'file_1'))).toEqual({ bytes: [1, 2, 3], mime_type: PDF });
    expect(await read(files.get(ORG_B, 'file_1'))).toEqual({ bytes: [4, 5], mime_type: PNG });
    await files.release(ORG_B, 'file_1');
    expect(await files.get(ORG_B, 'file_1')).toBeNull();
    expect(await read(files.get(ORG_A, 'file_1'))).toEqual({ bytes: [1, 2, 3], mime_type: PDF });
    // A's single reference is intact: one release removes it.
    await files.release(ORG_A, 'file_1');
    expect(await files.get(ORG_A, 'file_1')).toBeNull();
  }, t);
}
