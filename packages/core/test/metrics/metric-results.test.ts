import { describe, expect, it } from 'vitest';
import { computeMetricResults, isLabeled, metricResultsFromItems, outcomeFigures } from '../../src/index.js';
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
    expect(computeMetricResults([], [])).toMatchObject({ item_metrics: [], mean_similarity: 1, aligned_mean_similarity: 1, metric_type: 'levenshtein' });
    expect(computeMetricResults([], []).counts).toEqual({ documents: 0, succeeded: 0, failed: 0, unlabeled: 0, pending: 0 });
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

describe('outcomeFigures (honest means)', () => {
  it('counts a failed document as 0: 9 failed and 1 perfect give 0.1, coverage 0.1, succeeded mean 1', () => {
    const f = outcomeFigures({ documents: 10, unlabeled: 0, succeeded: 1, failed: 9, similarity: 1, aligned_similarity: 1 });
    expect(f.mean_similarity).toBeCloseTo(0.1, 12);
    expect(f.aligned_mean_similarity).toBeCloseTo(0.1, 12);
    expect(f.coverage).toBeCloseTo(0.1, 12);
    expect(f.succeeded_mean_similarity).toBe(1);
    expect(f.counts).toEqual({ documents: 10, succeeded: 1, failed: 9, unlabeled: 0, pending: 0 });
    expect(f.partial).toBe(false);
  });

  it('keeps unlabeled documents out of every mean, counts pending ones as partial, rates schema validity', () => {
    const f = outcomeFigures({
      documents: 5, unlabeled: 2, succeeded: 2, failed: 0, similarity: 1.5, aligned_similarity: 2, checked: 4, schema_valid: 3,
    });
    expect(f.mean_similarity).toBeCloseTo(0.75, 12);
    expect(f.counts).toEqual({ documents: 5, succeeded: 2, failed: 0, unlabeled: 2, pending: 1 });
    expect(f.partial).toBe(true);
    expect(f.schema_valid_rate).toBe(0.75);
    const none = outcomeFigures({ documents: 3, unlabeled: 3, succeeded: 0, failed: 0, similarity: 0, aligned_similarity: 0 });
    expect([none.mean_similarity, none.succeeded_mean_similarity, none.coverage, none.partial]).toEqual([0, null, null, false]);
  });

  it('a document with {} or only empty values is unlabeled; computeMetricResults leaves it out of the mean', () => {
    expect([isLabeled({}), isLabeled({ a: null, b: '', c: [], d: {} }), isLabeled({ a: 0 }), isLabeled({ a: [{ b: false }] })]).toEqual([
      false, false, true, true,
    ]);
    const r = computeMetricResults(
      [
        { id: 'a', name: 'a', annotation: { total: 10 } },
        { id: 'b', name: 'b', annotation: {} },
      ],
      [{ total: 10 }, { total: null }],
    );
    expect(r.item_metrics[1]!.similarity).toBe(1);
    expect(r.mean_similarity).toBe(1);
    expect(r.counts.unlabeled).toBe(1);
    const r2 = computeMetricResults([{ id: 'a', name: 'a', annotation: { total: 10 } }, { id: 'b', name: 'b', annotation: {} }], [{ total: 5 }, {}]);
    expect(r2.mean_similarity).toBe(0.5);
  });
});
