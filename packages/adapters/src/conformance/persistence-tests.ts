import type { Storage } from '@docevals/core';
import { expect, it } from 'vitest';
import type { ConformanceContext } from './context.js';
import { allByteValues, at, byteList, evaluationRecord, iterationRecord, ORG_A, ORG_B, processorRecord } from './fixtures.js';

/** Every acknowledged write survives a close and reopen of the same store; `close()` is idempotent. */
export function persistenceTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('close() can be called twice', async () => {
    const storage = await ctx.open();
    await storage.close();
    await expect(storage.close()).resolves.toBeUndefined();
  }, t);

  const reopen = ctx.reopen;
  if (!reopen) return;

  it('finds every acknowledged write after a reopen, and goes on from there', async () => {
    let storage: Storage = await ctx.open();
    const kept = evaluationRecord(ORG_A, 'eval_kept', at(1));
    const replaced = { ...evaluationRecord(ORG_A, 'eval_replaced', at(2)), name: 'third' };
    const iteration = iterationRecord(ORG_A, 'iter_1', at(3));
    const processor = processorRecord(ORG_B, 'proc_1', at(4));
    await storage.evaluations.insert(kept);
    await storage.evaluations.insert(evaluationRecord(ORG_A, 'eval_replaced', at(2)));
    await storage.evaluations.replace({ ...evaluationRecord(ORG_A, 'eval_replaced', at(2)), name: 'second' }, 1);
    await storage.evaluations.replace(replaced, 2);
    await storage.evaluations.insert(evaluationRecord(ORG_A, 'eval_deleted', at(5)));
    await storage.evaluations.delete(ORG_A, 'eval_deleted');
    await storage.iterations.insert(iteration);
    await storage.processors.insert(processor);
    await storage.files.retain(ORG_A, 'file_twice', { bytes: allByteValues(), mime_type: 'application/pdf' });
    await storage.files.retain(ORG_A, 'file_twice');
    await storage.files.retain(ORG_A, 'file_gone', { bytes: Uint8Array.from([1]), mime_type: 'image/png' });
    await storage.files.release(ORG_A, 'file_gone');
    await storage.files.retain(ORG_B, 'file_twice', { bytes: Uint8Array.from([2, 3]), mime_type: 'image/png' });

    storage = await reopen(storage);

    expect(await storage.evaluations.get(ORG_A, 'eval_kept')).toEqual({ value: kept, version: 1 });
    expect(await storage.evaluations.get(ORG_A, 'eval_replaced')).toEqual({ value: replaced, version: 3 });
    expect(await storage.evaluations.get(ORG_A, 'eval_deleted')).toBeNull();
    expect(await storage.iterations.get(ORG_A, 'iter_1')).toEqual({ value: iteration, version: 1 });
    expect(await storage.processors.get(ORG_B, 'proc_1')).toEqual({ value: processor, version: 1 });
    expect(await storage.processors.get(ORG_A, 'proc_1')).toBeNull();
    const page = await storage.evaluations.list(ORG_A, { limit: 10, order: 'desc' });
    expect(page!.items.map((r) => r.id)).toEqual(['eval_replaced', 'eval_kept']);

    const twice = await storage.files.get(ORG_A, 'file_twice');
    expect(twice && { bytes: byteList(twice.bytes), mime_type: twice.mime_type }).toEqual({
      bytes: byteList(allByteValues()),
      mime_type: 'application/pdf',
    });
    expect(await storage.files.get(ORG_A, 'file_gone')).toBeNull();
    const theirs = await storage.files.get(ORG_B, 'file_twice');
    expect(theirs && byteList(theirs.bytes)).toEqual([2, 3]);

    // Versions and reference counts carry on from where they were.
    expect(await storage.evaluations.replace({ ...replaced, name: 'fourth' }, 2)).toBeNull();
    expect((await storage.evaluations.replace({ ...replaced, name: 'fourth' }, 3))?.version).toBe(4);
    await expect(storage.evaluations.insert(kept)).rejects.toMatchObject({ code: 'conflict' });
    await storage.files.release(ORG_A, 'file_twice');
    expect(await storage.files.get(ORG_A, 'file_twice')).not.toBeNull();

    storage = await reopen(storage);
    expect((await storage.evaluations.get(ORG_A, 'eval_replaced'))?.value.name).toBe('fourth');
    expect(await storage.files.get(ORG_A, 'file_twice')).not.toBeNull();
    await storage.files.release(ORG_A, 'file_twice');
    expect(await storage.files.get(ORG_A, 'file_twice')).toBeNull();

    storage = await reopen(storage);
    expect(await storage.files.get(ORG_A, 'file_twice')).toBeNull();
    expect(await storage.files.retain(ORG_A, 'file_twice')).toBe(false);
  }, t);

  it('reopens an empty store empty', async () => {
    let storage = await ctx.open();
    storage = await reopen(storage);
    expect(await storage.evaluations.list(ORG_A, { limit: 10, order: 'asc' })).toEqual({ items: [], has_more: false });
    expect(await storage.files.get(ORG_A, 'file_1')).toBeNull();
  }, t);
}
