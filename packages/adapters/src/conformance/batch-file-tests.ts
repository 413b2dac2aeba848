import type { StoredFile } from '@docevals/core';
import { expect, it } from 'vitest';
import { type ConformanceContext } from './context.js';
import { byteList, ORG_A, ORG_B } from './fixtures.js';

const content = (...bytes: number[]): StoredFile => ({ bytes: Uint8Array.from(bytes), mime_type: 'application/pdf' });

/** retainMany / releaseMany: the batch forms of retain and release, counted exactly like N single calls. */
export function batchFileTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('retainMany stores new files, counts references (twice in the batch: two), answers per entry in order', async () => {
    const { files } = await ctx.open();
    await files.retain(ORG_A, 'file_old', content(1));
    const answers = await files.retainMany(ORG_A, [
      { fileId: 'file_new', content: content(2, 3) },
      { fileId: 'file_old' },
      { fileId: 'file_missing' },
      { fileId: 'file_new', content: content(9) },
      { fileId: 'file_old', content: content(8) },
    ]);
    expect(answers).toEqual([true, true, false, true, true]);
    expect(byteList((await files.get(ORG_A, 'file_new'))!.bytes)).toEqual([2, 3]);
    expect(byteList((await files.get(ORG_A, 'file_old'))!.bytes)).toEqual([1]);
    expect(await files.get(ORG_A, 'file_missing')).toBeNull();
    expect(await files.get(ORG_B, 'file_new')).toBeNull();
    // file_new: 2 references, file_old: 3.
    await files.releaseMany(ORG_A, ['file_new', 'file_old', 'file_old']);
    expect(await files.get(ORG_A, 'file_new')).not.toBeNull();
    expect(await files.get(ORG_A, 'file_old')).not.toBeNull();
    await files.releaseMany(ORG_A, ['file_new', 'file_old', 'file_unknown']);
    expect(await files.get(ORG_A, 'file_new')).toBeNull();
    expect(await files.get(ORG_A, 'file_old')).toBeNull();
    expect(await files.retainMany(ORG_A, [])).toEqual([]);
    await files.releaseMany(ORG_A, []);
  }, t);

  it('releaseMany naming one file as often as it is held removes it; more releases do nothing more', async () => {
    const { files } = await ctx.open();
    await files.retainMany(ORG_A, [{ fileId: 'f', content: content(1) }, { fileId: 'f' }, { fileId: 'g', content: content(2) }]);
    await files.releaseMany(ORG_A, ['f', 'f', 'f', 'g', 'g']);
    expect(await files.get(ORG_A, 'f')).toBeNull();
    expect(await files.get(ORG_A, 'g')).toBeNull();
    expect(await files.retain(ORG_A, 'f')).toBe(false);
  }, t);

  it('retainMany of 1,000 files and releaseMany of them leave nothing behind', async () => {
    const { files } = await ctx.open();
    const entries = Array.from({ length: 1000 }, (_, i) => ({ fileId: `file_${i}`, content: content(i % 256, 7) }));
    expect((await files.retainMany(ORG_A, entries)).every(Boolean)).toBe(true);
    expect(byteList((await files.get(ORG_A, 'file_999'))!.bytes)).toEqual([999 % 256, 7]);
    await files.releaseMany(ORG_A, entries.map((e) => e.fileId));
    expect(await files.get(ORG_A, 'file_0')).toBeNull();
    expect(await files.get(ORG_A, 'file_999')).toBeNull();
  }, t);

  it('concurrent retainMany and releaseMany batches on shared files keep exact counts', async () => {
    const { files } = await ctx.open();
    await files.retainMany(ORG_A, [{ fileId: 'a', content: content(1) }, { fileId: 'b', content: content(2) }]);
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        await files.retainMany(ORG_A, [{ fileId: 'a' }, { fileId: 'b' }, { fileId: 'a' }]);
        await files.releaseMany(ORG_A, ['a', 'a', 'b']);
      }),
    );
    await files.releaseMany(ORG_A, ['a']);
    expect(await files.get(ORG_A, 'a')).toBeNull();
    expect(await files.get(ORG_A, 'b')).not.toBeNull();
    await files.release(ORG_A, 'b');
    expect(await files.get(ORG_A, 'b')).toBeNull();
  }, t);

  it('getMany answers each file in the order asked (absent: null, twice: twice), scoped to the organization', async () => {
    const { files } = await ctx.open();
    expect(typeof files.getMany, 'every adapter of this package has getMany').toBe('function');
    const getMany = (organizationId: string, ids: string[]) => files.getMany!(organizationId, ids);
    await files.retainMany(ORG_A, [{ fileId: 'a', content: content(1, 2) }, { fileId: 'b', content: { bytes: new Uint8Array(), mime_type: 'image/png' } }]);
    await files.retain(ORG_B, 'c', content(3));
    const answers = await getMany(ORG_A, ['b', 'missing', 'a', 'c', 'a']);
    expect(answers.map((f) => f && { bytes: byteList(f.bytes), mime_type: f.mime_type })).toEqual([
      { bytes: [], mime_type: 'image/png' },
      null,
      { bytes: [1, 2], mime_type: 'application/pdf' },
      null,
      { bytes: [1, 2], mime_type: 'application/pdf' },
    ]);
    expect(answers[2]!.bytes).toBeInstanceOf(Uint8Array);
    expect(answers[2]!.bytes).not.toBe(answers[4]!.bytes);
    expect(await getMany(ORG_A, [])).toEqual([]);
    expect(await getMany(ORG_B, ['a', 'c']).then((f) => f.map((x) => x && byteList(x.bytes)))).toEqual([null, [3]]);
    // Released files are gone from the batch read too.
    await files.releaseMany(ORG_A, ['a']);
    expect(await getMany(ORG_A, ['a', 'b']).then((f) => f.map((x) => x?.mime_type ?? null))).toEqual([null, 'image/png']);
  }, t);
}
