import type { ExtractionDocument } from '@docevals/core';
import { renderedCache } from '@docevals/openai';
import { describe, expect, it } from 'vitest';

const doc = (id: string): ExtractionDocument => ({ id, filename: `${id}.pdf`, mime_type: 'application/pdf', bytes: new Uint8Array([1]) });

describe('renderedCache', () => {
  it('renders a document once for concurrent and later runs with the same settings; other settings or objects render anew', async () => {
    const cache = renderedCache<string>(1000, (v) => v.length);
    let renders = 0;
    const render = async () => `page-${++renders}`;
    const a = doc('a');
    const results = await Promise.all(Array.from({ length: 5 }, () => cache.get(a, 'k', render)));
    expect(results).toEqual(Array(5).fill('page-1'));
    expect(await cache.get(a, 'k', render)).toBe('page-1');
    expect(await cache.get(a, 'other-dpi', render)).toBe('page-2');
    expect(await cache.get(doc('a'), 'k', render)).toBe('page-3'); // another object, even with the same id
    expect(renders).toBe(3);
  });

  it('does not keep a failure: the next call renders again', async () => {
    const cache = renderedCache<string>(1000, (v) => v.length);
    const a = doc('a');
    await expect(cache.get(a, 'k', async () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(await cache.get(a, 'k', async () => 'ok')).toBe('ok');
  });

  it('holds at most the budget, least recently used out first; a value over the budget is not kept', async () => {
    const cache = renderedCache<string>(10, (v) => v.length);
    const [a, b, c] = [doc('a'), doc('b'), doc('c')];
    let renders = 0;
    const value = (v: string) => async () => {
      renders++;
      return v;
    };
    await cache.get(a, 'k', value('aaaa'));
    await cache.get(b, 'k', value('bbbb'));
    await cache.get(a, 'k', value('x')); // a is now the most recent
    await cache.get(c, 'k', value('cccc')); // 12 > 10: b goes
    expect(renders).toBe(3);
    expect(await cache.get(a, 'k', value('new-a'))).toBe('aaaa');
    expect(await cache.get(b, 'k', value('new-b'))).toBe('new-b');
    const big = doc('big');
    await cache.get(big, 'k', value('x'.repeat(11)));
    expect(await cache.get(big, 'k', value('again'))).toBe('again');
  });
});
