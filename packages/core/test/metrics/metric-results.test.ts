import { describe, expect, it } from 'vitest';
import { computeMetricResults, metricResultsFromItems } from '../../src/index.js';
import { expectValidationError } from './expect-validation-error.js';

describe('computeMetricResults', () => {
  it('lists one item per document in document order with the means', () => {
    const r = computeMetricResults(
      [
        { id: 'doc_b', name: 'b.pdf', annotation: { total: 100 } },
        { id: 'doc_a', name: 'a.pdf', annotation: { l: ['aaa', 'bbb'] } },
      ],
      [{ total: 90 }, { l: ['bbb', 'aaa'] }],
    );
    expect(r.metric_type).toBe('levenshtein');
    expect(r.item_metrics.map((i) => [i.id, i.name])).toEqual([['doc_b', 'b.pdf'], ['doc_a', 'a.pdf']]);
    expect(r.item_metrics[0]!.similarity).toBeCloseTo(0.9, 12);
    expect(r.item_metrics[1]!.similarity).toBe(0);
    expect(r.item_metrics[1]!.aligned_similarity).toBe(1);
    expect(r.mean_similarity).toBeCloseTo(0.45, 12);
    expect(r.aligned_mean_similarity).toBeCloseTo(0.95, 12);
    expect(r.item_metrics[0]!.flat_similarities).toEqual({ total: expect.closeTo(0.9, 12) });
  });

  it('gives means of 1 without documents', () => {
    expect(computeMetricResults([], [])).toEqual({ item_metrics: [], mean_similarity: 1, aligned_mean_similarity: 1, metric_type: 'levenshtein' });
    expect(metricResultsFromItems([]).mean_similarity).toBe(1);
  });

  it('refuses a prediction count that differs from the document count, and bad values with their path', () => {
    expectValidationError(() => computeMetricResults([{ id: 'd', name: 'n', annotation: {} }], []), 'predictions');
    expectValidationError(
      () => computeMetricResults([{ id: 'd', name: 'n', annotation: {} }, { id: 'e', name: 'm', annotation: { x: Number.NaN } }], [{}, {}]),
      'documents.1.annotation.x',
    );
    expectValidationError(() => computeMetricResults([{ id: 'd', name: 'n', annotation: {} }], [{ f: undefined } as never]), 'predictions.0.f');
  });
});
