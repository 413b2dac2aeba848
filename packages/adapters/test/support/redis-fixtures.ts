import type { EvaluationRecord, StoredDocument } from '@docevals/core';

/** A small evaluation record (its documents refer to files stored apart), as the service would store it. */
export function evaluationFixture(
  organizationId: string,
  id: string,
  options: { documents?: number; updatedAt?: string } = {},
): EvaluationRecord {
  const now = options.updatedAt ?? new Date().toISOString();
  const documents: StoredDocument[] = Array.from({ length: options.documents ?? 1 }, (_, i) => ({
    id: `file_${id}_${i}`,
    filename: `invoice-${i}.pdf`,
    annotation: { total: i, vendor: 'ACME' },
    annotation_metadata: null,
    revision: `rev_${i}_0`,
  }));
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
    documents,
    iteration_ids: [],
  };
}
