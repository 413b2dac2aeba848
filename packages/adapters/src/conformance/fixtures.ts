import type {
  DocumentRecord,
  EvaluationRecord,
  IterationRecord,
  PredictionRecord,
  PredictionTotals,
  ProcessorRecord,
  RecordCollection,
  Storage,
  StoredRecordBase,
} from '@docevals/core';

export const ORG_A = 'org_conformance_a';
export const ORG_B = 'org_conformance_b';

/** A timestamp `n` seconds after a fixed instant, formatted as the service writes it (`toISOString()`). */
export function at(n: number): string {
  return new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
}

/** Values that a lossy store (numbers as strings, dropped nulls, mangled unicode) would not give back intact. */
const tricky = {
  unicode: 'Zürich — 東京 🚀 "quoted" \\ back\nslash',
  numbers: [0, -1, 0.1, 1e21, 123456789.125],
  nothing: null,
  empty: {},
  list: [],
  flag: false,
};

export function evaluationRecord(
  organizationId: string,
  id: string,
  updatedAt = at(0),
  tag = 'alpha',
  tag2 = 'x',
): EvaluationRecord {
  return {
    id,
    organization_id: organizationId,
    updated_at: updatedAt,
    created_at: at(0),
    name: `Evaluation ${id}`,
    project_id: tag,
    json_schema: { type: 'object', properties: { total: { type: 'number', description: tricky.unicode } } },
    schema_id: tag2,
    schema_data_id: 'sch_data_id_0123456789abcdef',
    default_inference_settings: { model: 'gpt-4o', temperature: 0 },
    document_count: 1,
    iteration_ids: [],
  };
}

export function iterationRecord(
  organizationId: string,
  id: string,
  updatedAt = at(0),
  tag = 'alpha',
  tag2 = 'x',
): IterationRecord {
  return {
    id,
    organization_id: organizationId,
    updated_at: updatedAt,
    created_at: at(0),
    evaluation_id: tag2,
    model: tag,
    inference_settings: {
      model: tag,
      temperature: 0.5,
      modality: 'native',
      reasoning_effort: null,
      image_resolution_dpi: 96,
      browser_canvas: 'A4',
      n_consensus: 1,
    },
    json_schema: { type: 'object' },
    schema_id: 'sch_id_0123456789abcdef',
    schema_data_id: 'sch_data_id_0123456789abcdef',
    status: 'completed',
    started_at: at(0),
    finished_at: at(1),
    error: null,
    lease: null,
  };
}

export function processorRecord(
  organizationId: string,
  id: string,
  updatedAt = at(0),
  tag = 'alpha',
  tag2 = 'x',
): ProcessorRecord {
  return {
    id,
    organization_id: organizationId,
    updated_at: updatedAt,
    created_at: at(0),
    name: tag2,
    model: tag,
    modality: 'image+text',
    image_resolution_dpi: 150,
    browser_canvas: 'A3',
    temperature: 0,
    reasoning_effort: 'high',
    n_consensus: 3,
    json_schema: { type: 'object', properties: { tricky: { const: tricky } } },
    schema_id: 'sch_id_0123456789abcdef',
    schema_data_id: 'sch_data_id_0123456789abcdef',
  };
}

/** What the record tests need to know about one collection, so that every test runs on all three. */
export interface CollectionCase {
  key: 'evaluations' | 'iterations' | 'processors';
  select(storage: Storage): RecordCollection<StoredRecordBase>;
  /** A record whose `tagField` is `tag` and whose `tag2Field` is `tag2`. */
  make(organizationId: string, id: string, updatedAt?: string, tag?: string, tag2?: string): StoredRecordBase;
  /** Top-level string fields the `where` tests filter on. */
  tagField: string;
  tag2Field: string;
  /** The same record with a visible change of content (not of id, organization or updated_at). */
  change(record: StoredRecordBase, mark: string): StoredRecordBase;
}

export const COLLECTION_CASES: CollectionCase[] = [
  {
    key: 'evaluations',
    select: (s) => s.evaluations,
    make: evaluationRecord,
    tagField: 'project_id',
    tag2Field: 'schema_id',
    change: (r, mark) => ({ ...(r as EvaluationRecord), name: `renamed ${mark}` }) as StoredRecordBase,
  },
  {
    key: 'iterations',
    select: (s) => s.iterations,
    make: iterationRecord,
    tagField: 'model',
    tag2Field: 'evaluation_id',
    change: (r, mark) => {
      const it = r as IterationRecord;
      return { ...it, status: 'failed', error: `failed ${mark}`, lease: { owner: mark, expires_at: at(9) } } as StoredRecordBase;
    },
  },
  {
    key: 'processors',
    select: (s) => s.processors,
    make: processorRecord,
    tagField: 'model',
    tag2Field: 'name',
    change: (r, mark) => ({ ...(r as ProcessorRecord), json_schema: { type: 'object', title: mark } }) as StoredRecordBase,
  },
];

/** Every byte value 0..255, twice, so a text round-trip (UTF-8, latin1, base64 mistakes) shows. */
export function allByteValues(): Uint8Array {
  const bytes = new Uint8Array(512);
  for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
  return bytes;
}

/** Deterministic pseudo-random bytes (no Math.random: a failure must replay). */
export function pseudoRandomBytes(length: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

/** Plain array of a byte view, so that `toEqual` compares values and ignores Buffer vs Uint8Array. */
export function byteList(bytes: Uint8Array): number[] {
  return Array.from(bytes);
}

/** A document of evaluation `parentId`; `size` also goes into `totals.size`, so documents exercise totals too. */
export function documentRecord(organizationId: string, parentId: string, id: string, size = 100, updatedAt = at(0)): DocumentRecord {
  return {
    id,
    organization_id: organizationId,
    parent_id: parentId,
    updated_at: updatedAt,
    filename: `${id}.pdf`,
    mime_type: 'application/pdf',
    size,
    annotation: { total: size, tricky },
    annotation_metadata: { extraction_id: null, likelihoods: { total: 0.9 } },
    revision: `rev_${id}`,
    totals: { size },
  };
}

/** The totals a prediction with this outcome carries (PredictionTotals). */
export function predictionTotals(similarity: number, succeeded = true, cost = 0.01, tokens = 10): PredictionTotals {
  return {
    succeeded: succeeded ? 1 : 0,
    failed: succeeded ? 0 : 1,
    similarity: succeeded ? similarity : 0,
    aligned_similarity: succeeded ? similarity : 0,
    cost,
    input_tokens: tokens,
    output_tokens: tokens * 2,
  };
}

/** A prediction of iteration `parentId` for document `id`, with `similarity` in its metrics and totals. */
export function predictionRecord(
  organizationId: string,
  parentId: string,
  id: string,
  similarity = 0.5,
  succeeded = true,
  updatedAt = at(0),
): PredictionRecord {
  return {
    id,
    organization_id: organizationId,
    parent_id: parentId,
    evaluation_id: 'eval_1',
    updated_at: updatedAt,
    status: succeeded ? 'succeeded' : 'failed',
    prediction: succeeded ? { total: similarity, tricky } : {},
    metadata: succeeded ? null : { error: 'the model answered 500' },
    metrics: {
      annotation_revision: `rev_${id}`,
      similarity,
      flat_similarities: { total: similarity },
      similarities: { total: similarity },
      aligned_similarity: similarity,
      aligned_flat_similarities: { total: similarity },
      aligned_similarities: { total: similarity },
    },
    totals: predictionTotals(similarity, succeeded),
  };
}
