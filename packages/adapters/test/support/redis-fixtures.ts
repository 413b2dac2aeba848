import type { DocumentRecord, EvaluationRecord } from '@docevals/core';

/** A small evaluation record (its documents refer to files stored apart), as the service would store it. */
export function evaluationFixture(
  organizationId: string,
  id: string,
  options: { documents?: number; updatedAt?: string } = {},
): EvaluationRecord {
  const now = options.updatedAt ?? new Date().toISOString();
  return {
    id,
    organization_id: organizationId,
    updated_at: now,
    created_at: now,
    name: `Evaluation ${id}`,
    project_id: 'proj_redis',
    json_schema: { type: 'object', properties: { total: { type: 'number' }, vendor: { type: 'string' } } },
    schema_id: 'sch_1',
    schema_data_id: 'sch_data_1',
    default_inference_settings: { model: 'gpt-4o', temperature: 0 },
    document_count: options.documents ?? 1,
    iteration_ids: [],
  };
}

/** The documents of {@link evaluationFixture}, as the service stores them beside it. */
export function documentsFixture(organizationId: string, evaluationId: string, count = 1, updatedAt = new Date().toISOString()): DocumentRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `file_${evaluationId}_${i}`,
    organization_id: organizationId,
    parent_id: evaluationId,
    updated_at: updatedAt,
    filename: `invoice-${i}.pdf`,
    mime_type: 'application/pdf',
    size: 1000,
    annotation: { total: i, vendor: 'ACME' },
    annotation_metadata: null,
    revision: `rev_${i}_0`,
  }));
}
