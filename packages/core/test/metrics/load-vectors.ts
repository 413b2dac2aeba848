import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The metric vectors the repository carries (fixtures/vectors, see its README). A missing file throws. */
export const VECTORS_PATH = fileURLToPath(new URL('../../../../fixtures/vectors/metrics-vectors.json', import.meta.url));

export interface MetricsVectors {
  schemas: Array<{ schema: unknown; schema_id: string; schema_data_id: string }>;
  files: Array<{ base64: string; file_id: string }>;
  leaf: Array<{ a: unknown; b: unknown; similarity: number }>;
  items: Array<{
    annotation: Record<string, unknown>;
    prediction: Record<string, unknown>;
    similarity: number;
    flat_similarities: Record<string, number>;
    similarities: Record<string, unknown>;
    aligned_similarity: number;
    aligned_flat_similarities: Record<string, number>;
    aligned_similarities: Record<string, unknown>;
  }>;
}

export function loadVectors(): MetricsVectors {
  return JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as MetricsVectors;
}

/**
 * Deep comparison with numbers within `tolerance` and key order ignored; returns the first difference's path or
 * null. (`toBeCloseTo` has no deep form, and nested trees must be checked whole.)
 */
export function firstDifference(actual: unknown, expected: unknown, tolerance = 1e-9, path = ''): string | null {
  if (typeof expected === 'number') {
    return typeof actual === 'number' && Math.abs(actual - expected) <= tolerance
      ? null
      : `${path}: expected ${expected}, got ${JSON.stringify(actual)}`;
  }
  if (expected === null || typeof expected !== 'object') {
    return actual === expected ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual) !== Array.isArray(expected)) {
    return `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  const ek = Object.keys(expected).sort();
  const ak = Object.keys(actual).sort();
  if (ek.join('\u0000') !== ak.join('\u0000')) {
    return `${path}: keys differ: expected [${ek.join(', ')}], got [${ak.join(', ')}]`;
  }
  for (const key of ek) {
    const d = firstDifference(
      (actual as Record<string, unknown>)[key],
      (expected as Record<string, unknown>)[key],
      tolerance,
      `${path}/${key}`,
    );
    if (d) return d;
  }
  return null;
}
