import { type EvaluationRecord, type StoredFile } from '@docevals/core';
import { updateRecord } from '@docevals/core/internal';
import { expect, it } from 'vitest';
import { type ConformanceContext, rejection } from './context.js';
import { at, evaluationRecord, iterationRecord, ORG_A, processorRecord } from './fixtures.js';

const N = 50;

/** Parallel writers on one record or one file: none may be lost, exactly one may win a race. */
export function concurrencyTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it(`keeps every one of ${N} parallel updateRecord appends to one evaluation`, async () => {
    const { evaluations } = await ctx.open();
    await evaluations.insert({ ...evaluationRecord(ORG_A, 'eval_1', at(0)), document_count: 0, iteration_ids: [] });
    const appends = Array.from({ length: N }, (_, i) =>
      updateRecord(evaluations, ORG_A, 'eval_1', (current: EvaluationRecord) => ({
        write: {
          ...current,
          updated_at: at(i + 1),
          iteration_ids: [...current.iteration_ids, `iter_${i}`],
          document_count: current.document_count + 1,
        },
        result: i,
      })),
    );
    await Promise.all(appends);
    const stored = await evaluations.get(ORG_A, 'eval_1');
    expect(stored!.version).toBe(N + 1);
    expect([...stored!.value.iteration_ids].sort()).toEqual(Array.from({ length: N }, (_, i) => `iter_${i}`).sort());
    expect(stored!.value.document_count).toBe(N);
  }, t);

  it(`lets exactly one of ${N} parallel replaces naming the same version win`, async () => {
    const { processors } = await ctx.open();
    await processors.insert(processorRecord(ORG_A, 'proc_1', at(0)));
    const attempts = await Promise.all(
      Array.from({ length: N }, (_, i) => processors.replace({ ...processorRecord(ORG_A, 'proc_1', at(1)), name: `w${i}` }, 1)),
    );
    const winners = attempts.filter((a) => a !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.version).toBe(2);
    const stored = await processors.get(ORG_A, 'proc_1');
    expect(stored).toEqual({ value: winners[0]!.value, version: 2 });
  }, t);

  it(`lets exactly one of ${N} parallel inserts of one id win; the others conflict`, async () => {
    const { iterations } = await ctx.open();
    const outcomes = await Promise.allSettled(
      Array.from({ length: N }, (_, i) => iterations.insert({ ...iterationRecord(ORG_A, 'iter_1', at(i)), model: `m${i}` })),
    );
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') expect((o.reason as { code?: string }).code).toBe('conflict');
    }
    const stored = await iterations.get(ORG_A, 'iter_1');
    expect(stored).toEqual({ value: (won[0] as PromiseFulfilledResult<{ value: unknown }>).value.value, version: 1 });
    await rejection(iterations.insert(iterationRecord(ORG_A, 'iter_1')));
  }, t);

  it(`counts ${N} parallel retains of a new file: ${N - 1} releases keep it, one more removes it`, async () => {
    const { files } = await ctx.open();
    const content: StoredFile = { bytes: Uint8Array.from([1, 2, 3]), mime_type: 'application/pdf' };
    const retained = await Promise.all(Array.from({ length: N }, () => files.retain(ORG_A, 'file_1', content)));
    expect(retained.every((r) => r === true)).toBe(true);
    await Promise.all(Array.from({ length: N - 1 }, () => files.release(ORG_A, 'file_1')));
    expect(await files.get(ORG_A, 'file_1')).not.toBeNull();
    await files.release(ORG_A, 'file_1');
    expect(await files.get(ORG_A, 'file_1')).toBeNull();
  }, t);

  it(`leaves the count as it was after ${N} parallel retain/release pairs`, async () => {
    const { files } = await ctx.open();
    const content: StoredFile = { bytes: Uint8Array.from([4, 5, 6]), mime_type: 'application/pdf' };
    await files.retain(ORG_A, 'file_1', content);
    await Promise.all(
      Array.from({ length: N }, async () => {
        expect(await files.retain(ORG_A, 'file_1', content)).toBe(true);
        await files.release(ORG_A, 'file_1');
      }),
    );
    expect(await files.get(ORG_A, 'file_1')).not.toBeNull();
    await files.release(ORG_A, 'file_1');
    expect(await files.get(ORG_A, 'file_1')).toBeNull();
  }, t);
}
