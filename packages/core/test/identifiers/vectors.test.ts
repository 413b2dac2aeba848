import { describe, expect, it } from 'vitest';
import { computeFileId, computeSchemaDataId, computeSchemaId, type JsonValue } from '../../src/index.js';
import { loadVectors } from '../metrics/load-vectors.js';

const vectors = loadVectors();

describe('identifier vectors (fixtures/vectors/metrics-vectors.json)', () => {
  it('holds schemas and files', () => {
    expect(vectors.schemas.length).toBeGreaterThan(0);
    expect(vectors.files.length).toBeGreaterThan(0);
  });

  it.each(vectors.schemas.map((c, i) => [i, c] as const))('schema case %i', (_i, c) => {
    expect(computeSchemaId(c.schema as JsonValue)).toBe(c.schema_id);
    expect(computeSchemaDataId(c.schema as JsonValue)).toBe(c.schema_data_id);
  });

  it.each(vectors.files.map((c, i) => [i, c] as const))('file case %i', (_i, c) => {
    expect(computeFileId(new Uint8Array(Buffer.from(c.base64, 'base64')))).toBe(c.file_id);
  });
});
