import type { DocumentRecord, EvaluationRecord, ProcessorRecord, StoredFile } from '@docevals/core';

/** Records the streaming child writes and the parent checks, built the same way on both sides. */
export const STREAM_ORG = 'org_stream';

export function streamEvaluation(): EvaluationRecord {
  return {
    id: 'eval_stream',
    organization_id: STREAM_ORG,
    updated_at: '2026-01-01T00:00:00.000Z',
    created_at: '2026-01-01T00:00:00.000Z',
    name: 'stream',
    project_id: 'proj_stream',
    json_schema: { type: 'object' },
    schema_id: 'sch_id_0000000000000000',
    schema_data_id: 'sch_data_id_0000000000000000',
    default_inference_settings: {},
    document_count: 0,
    iteration_ids: [],
  };
}

export function streamProcessor(i: number): ProcessorRecord {
  return {
    id: `proc_${i}`,
    organization_id: STREAM_ORG,
    updated_at: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
    created_at: '2026-01-01T00:00:00.000Z',
    name: `processor ${i}`,
    model: 'gpt-4o',
    modality: 'native',
    image_resolution_dpi: 96,
    browser_canvas: 'A4',
    temperature: 0,
    reasoning_effort: 'medium',
    n_consensus: 1,
    json_schema: { type: 'object' },
    schema_id: 'sch_id_0000000000000000',
    schema_data_id: 'sch_data_id_0000000000000000',
  };
}

/** 4 KB whose every byte depends on `i`, so that a mix-up between files shows. */
export function contentOf(i: number): StoredFile {
  const bytes = new Uint8Array(4096);
  for (let k = 0; k < bytes.length; k++) bytes[k] = (k * 31 + i * 7) & 0xff;
  return { bytes, mime_type: 'application/pdf' };
}

/** The document the streaming child stores for file `file_<key>` of the evaluation. */
export function streamDocument(key: string): DocumentRecord {
  return {
    id: `file_${key}`,
    organization_id: STREAM_ORG,
    parent_id: 'eval_stream',
    updated_at: '2026-01-01T00:00:00.000Z',
    filename: `${key}.pdf`,
    mime_type: 'application/pdf',
    size: 4096,
    annotation: { key },
    annotation_metadata: null,
    revision: `rev_${key}`,
  };
}
