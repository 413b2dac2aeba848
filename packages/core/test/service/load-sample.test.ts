import { describe, expect, it } from 'vitest';
import type { SampleEvaluation } from '@docevals/core';
import { memoryStorage } from '../support/memory-storage.js';
import { makeService, ORG, OTHER_ORG } from './fixtures.js';

const text = (s: string) => `data:text/plain;base64,${Buffer.from(s).toString('base64')}`;
const SAMPLE: SampleEvaluation = {
  evaluation: {
    name: 'Sample',
    json_schema: { type: 'object', properties: { total: { type: 'number' } } },
    documents: [
      { mime_data: { filename: 'a.txt', url: text('Total: 1') }, annotation: { total: 1 } },
      { mime_data: { filename: 'b.txt', url: text('Total: 2') }, annotation: { total: 2 } },
    ],
    iterations: [
      { inference_settings: { model: 'm' }, predictions: [{ prediction: { total: 1 } }, { prediction: { total: 3 } }] },
      { inference_settings: { model: 'm' }, predictions: [{ prediction: { total: 1 } }, { prediction: { total: 2 } }] },
    ],
  },
  labels: [{ name: 'First', tags: ['sample'] }, { name: 'Second', description: 'Better' }],
};

describe('evals.loadSample', () => {
  it('creates the host\'s sample for the caller\'s organization, its iterations scored and named; each call a new one', async () => {
    const docevals = makeService({ storage: memoryStorage(), sample: () => structuredClone(SAMPLE) });
    const sample = await docevals.evals.loadSample(ORG);
    expect(sample).toMatchObject({ name: 'Sample', document_count: 2, unlabeled_count: 0 });
    expect(sample.iterations.map((it) => [it.name, it.description, it.tags, it.metric_results.mean_similarity])).toEqual([
      ['First', null, ['sample'], expect.any(Number)],
      ['Second', 'Better', [], 1],
    ]);
    expect(sample.iterations[0]!.metric_results.mean_similarity).toBeLessThan(1);
    const again = await docevals.evals.loadSample(ORG, {});
    expect(again.id).not.toBe(sample.id);
    expect((await docevals.evals.list(ORG)).data).toHaveLength(2);
    expect((await docevals.evals.list(OTHER_ORG)).data).toHaveLength(0);
  });

  it('answers not_configured when the host offers no sample, storing nothing; refuses input it does not take', async () => {
    const docevals = makeService({ storage: memoryStorage() });
    await expect(docevals.evals.loadSample(ORG)).rejects.toMatchObject({ code: 'not_configured' });
    expect((await docevals.evals.list(ORG)).data).toEqual([]);
    const offering = makeService({ storage: memoryStorage(), sample: () => SAMPLE });
    await expect(offering.evals.loadSample(ORG, 'x' as never)).rejects.toMatchObject({ code: 'validation_error' });
    await expect(offering.evals.loadSample('')).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
