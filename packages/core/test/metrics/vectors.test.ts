import { describe, expect, it } from 'vitest';
import { compareDocuments, documentSimilarity, leafSimilarity, type JsonObject, type JsonValue } from '../../src/index.js';
import { firstDifference, loadVectors } from './load-vectors.js';

// Loaded at collection time: a missing or unreadable file fails the run instead of skipping it.
const vectors = loadVectors();

describe('metrics vectors (fixtures/vectors/metrics-vectors.json)', () => {
  it('holds cases of every kind', () => {
    expect(vectors.leaf.length).toBeGreaterThan(0);
    expect(vectors.items.length).toBeGreaterThan(0);
  });

  it.each(vectors.leaf.map((c, i) => [i, c] as const))('leaf case %i', (_i, c) => {
    expect(leafSimilarity(c.a as JsonValue, c.b as JsonValue)).toBeCloseTo(c.similarity, 9);
  });

  it.each(vectors.items.map((c, i) => [i, c] as const))('item case %i: all six figures', (_i, c) => {
    const r = compareDocuments(c.annotation as JsonObject, c.prediction as JsonObject);
    for (const field of [
      'similarity',
      'flat_similarities',
      'similarities',
      'aligned_similarity',
      'aligned_flat_similarities',
      'aligned_similarities',
    ] as const) {
      expect(firstDifference(r[field], c[field]), field).toBeNull();
    }
    // The number-only walk (used by alignment weights and documentSimilarity) agrees with the full one.
    expect(documentSimilarity(c.annotation as JsonObject, c.prediction as JsonObject)).toBeCloseTo(c.similarity, 9);
  });
});
