import { describe, expect, it } from 'vitest';
import { createDocevals, listModels, localRulesExtractor, type Extractor } from '@docevals/core';
import { memoryStorage } from '@docevals/core/storage-kit';

const extractor = (name: string, models: Array<string | RegExp>, modalities?: Extractor['modalities']): Extractor => ({
  name,
  models,
  ...(modalities ? { modalities } : {}),
  extract: async () => ({ data: {} }),
});

describe('listModels', () => {
  it('lists every entry in routing order, patterns flagged, with the modalities each extractor declares', () => {
    const list = listModels([
      localRulesExtractor(),
      extractor('vision', ['gpt-*', /^o\d/i, 'exact-model'], (model) => (model.startsWith('gpt-') ? ['image', 'text'] : ['text'])),
      extractor('plain', ['plain-model', 'gpt-*']),
    ]);
    expect(list).toEqual({
      data: [
        { id: 'local-rules', extractor: 'local-rules', pattern: false, modalities: ['text'] },
        { id: 'gpt-*', extractor: 'vision', pattern: true, modalities: ['text', 'image'] },
        { id: '/^o\\d/i', extractor: 'vision', pattern: true, modalities: ['text'] },
        { id: 'exact-model', extractor: 'vision', pattern: false, modalities: ['text'] },
        // undeclared modalities are null; "gpt-*" again is served by the first extractor, so listed once
        { id: 'plain-model', extractor: 'plain', pattern: false, modalities: null },
      ],
    });
  });

  it('keeps only known modalities, in a fixed order', () => {
    const list = listModels([extractor('x', ['m'], ['native', 'video' as never, 'text'])]);
    expect(list.data[0]!.modalities).toEqual(['text', 'native']);
  });

  it('is docevals.listModels(), local-rules by default', async () => {
    const docevals = createDocevals({ storage: memoryStorage() });
    expect(await docevals.listModels()).toEqual({ data: [{ id: 'local-rules', extractor: 'local-rules', pattern: false, modalities: ['text'] }] });
  });
});
