import type { DocumentRecord, EvaluationRecord, PredictionRecord } from '@docevals/core';

/** An evaluation record of the per-document layout (its documents are child records). */
export function pgEvaluation(organizationId: string, id: string, updatedAt = new Date().toISOString()): EvaluationRecord {
  return {
    id,
    organization_id: organizationId,
    updated_at: updatedAt,
    created_at: updatedAt,
    name: `Evaluation ${id}`,
    project_id: 'proj_pg',
    // Key order that jsonb would not keep (it sorts keys by length): the store gives it back as written.
    json_schema: { type: 'object', properties: { vendor_name: { type: 'string' }, total: { type: 'number' } } },
    schema_id: 'sch_1',
    schema_data_id: 'sch_data_1',
    default_inference_settings: { model: 'gpt-4o', temperature: 0 },
    document_count: 0,
    iteration_ids: [],
  };
}

/** A document of `evaluationId`. */
export function pgDocument(organizationId: string, evaluationId: string, id: string, total = 1): DocumentRecord {
  return {
    id,
    organization_id: organizationId,
    parent_id: evaluationId,
    updated_at: new Date().toISOString(),
    filename: `${id}.pdf`,
    mime_type: 'application/pdf',
    size: 1234,
    annotation: { vendor_name: 'ACME', total },
    annotation_metadata: null,
    revision: `rev_${id}_${total}`,
  };
}

/** A prediction of `iterationId` for document `id`, whose totals say it succeeded with `similarity`. */
export function pgPrediction(organizationId: string, iterationId: string, id: string, similarity = 0.5): PredictionRecord {
  return {
    id,
    organization_id: organizationId,
    parent_id: iterationId,
    evaluation_id: 'eval_pg',
    updated_at: new Date().toISOString(),
    status: 'succeeded',
    prediction: { vendor_name: 'ACME', total: similarity },
    metadata: null,
    metrics: {
      annotation_revision: 'rev_1',
      similarity,
      flat_similarities: {},
      similarities: {},
      aligned_similarity: similarity,
      aligned_flat_similarities: {},
      aligned_similarities: {},
    } as unknown as PredictionRecord['metrics'],
    totals: { succeeded: 1, failed: 0, similarity, aligned_similarity: similarity, cost: 0.25, input_tokens: 10, output_tokens: 2 },
  };
}
