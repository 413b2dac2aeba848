import pLimit from 'p-limit';
import { notFound } from '../errors.js';
import {
  addDocumentInputSchema,
  documentRefInputSchema,
  listDocumentsInputSchema,
  updateDocumentInputSchema,
  type AddDocumentInput,
  type Deleted,
  type Document,
  type DocumentRefInput,
  type ListDocumentsInput,
  type ListResult,
  type UpdateDocumentInput,
} from '../schemas/index.js';
import type { EvaluationRecord, StoredDocument } from '../storage.js';
import type { ServiceContext } from './context.js';
import { prepareDocument, releaseFiles, retainFiles, toStoredDocument } from './document-files.js';
import { assertAnnotations } from '../json-schema/annotation.js';
import { requireEvaluation } from './evaluations.js';
import { newRevision } from './ids.js';
import { assertOneCursor, listMetadata, pageOf, unknownCursor } from './lists.js';
import { computeDocumentMetrics, renderDocuments } from './render.js';
import { updateRecord } from './update-record.js';
import { invalidRequest, parseInput } from './validate.js';

/** How many iteration records a metrics refresh or a purge writes at once. */
const REFRESH_CONCURRENCY = 8;

function findDocument(evaluation: EvaluationRecord, documentId: string): StoredDocument {
  const document = evaluation.documents.find((d) => d.id === documentId);
  if (!document) throw notFound('document', documentId);
  return document;
}

/**
 * Brings the cached metrics of one document up to date in every iteration of the evaluation (docs/spec/service.md: changing
 * an annotation recomputes every iteration's metrics). Each iteration is its own compare-and-set, so a re-run
 * writing predictions at the same time is never overwritten; a cache computed for an older revision is never
 * served (render checks the revision), so the order of concurrent refreshes does not matter.
 */
export async function refreshDocumentMetrics(
  ctx: ServiceContext,
  evaluation: EvaluationRecord,
  document: StoredDocument,
): Promise<void> {
  const limit = pLimit(REFRESH_CONCURRENCY);
  await Promise.all(
    evaluation.iteration_ids.map((iterationId) =>
      limit(() =>
        updateRecord(ctx.storage.iterations, evaluation.organization_id, iterationId, (iteration) => {
          const entry = iteration.predictions[document.id];
          if (!entry || entry.metrics?.annotation_revision === document.revision) return { skip: true, result: undefined };
          const metrics = computeDocumentMetrics(document.annotation, entry.prediction, document.revision);
          return {
            write: { ...iteration, predictions: { ...iteration.predictions, [document.id]: { ...entry, metrics } } },
            result: undefined,
          };
        }),
      ),
    ),
  );
}

export function documentOperations(ctx: ServiceContext) {
  return {
    async add(organizationId: string, raw: AddDocumentInput): Promise<Document> {
      const input = parseInput(addDocumentInputSchema, raw);
      const document = prepareDocument(input, '');
      if (Array.isArray(document)) throw invalidRequest(document);
      await requireEvaluation(ctx, organizationId, input.evaluation_id);
      await retainFiles(ctx, organizationId, [document]);
      const stored = toStoredDocument(document, newRevision());
      try {
        const updated = await updateRecord(ctx.storage.evaluations, organizationId, input.evaluation_id, (current) => {
          assertAnnotations(current.json_schema, [{ annotation: stored.annotation, path: 'annotation' }], input.validate);
          if (current.documents.some((d) => d.id === stored.id)) {
            throw invalidRequest([{ path: 'id', message: `the evaluation already holds this file (${stored.id})` }]);
          }
          if (current.documents.length >= ctx.limits.maxDocumentsPerEvaluation) {
            throw invalidRequest([{ path: '', message: `the evaluation already has ${current.documents.length} documents, the limit` }]);
          }
          return {
            write: { ...current, documents: [...current.documents, stored], updated_at: ctx.now() },
            result: undefined,
          };
        });
        if (!updated) throw notFound('evaluation', input.evaluation_id);
      } catch (error) {
        await releaseFiles(ctx, organizationId, [stored.id]);
        throw error;
      }
      const [rendered] = await renderDocuments(ctx, organizationId, [stored]);
      return rendered!;
    },

    async list(organizationId: string, raw: ListDocumentsInput): Promise<ListResult<Document>> {
      const input = parseInput(listDocumentsInputSchema, raw);
      assertOneCursor(input);
      const evaluation = await requireEvaluation(ctx, organizationId, input.evaluation_id);
      const page = pageOf(evaluation.value.documents, input);
      if (!page) throw unknownCursor(input);
      return {
        data: await renderDocuments(ctx, organizationId, page.items),
        list_metadata: listMetadata(page, input),
      };
    },

    async get(organizationId: string, raw: DocumentRefInput): Promise<Document> {
      const input = parseInput(documentRefInputSchema, raw);
      const evaluation = await requireEvaluation(ctx, organizationId, input.evaluation_id);
      const [rendered] = await renderDocuments(ctx, organizationId, [findDocument(evaluation.value, input.document_id)]);
      return rendered!;
    },

    async update(organizationId: string, raw: UpdateDocumentInput): Promise<Document> {
      const input = parseInput(updateDocumentInputSchema, raw);
      const updated = await updateRecord(ctx.storage.evaluations, organizationId, input.evaluation_id, (current) => {
        const document = findDocument(current, input.document_id);
        assertAnnotations(current.json_schema, [{ annotation: input.annotation, path: 'annotation' }], input.validate);
        const next: StoredDocument = {
          ...document,
          annotation: input.annotation,
          annotation_metadata: input.annotation_metadata !== undefined ? input.annotation_metadata : document.annotation_metadata,
          revision: newRevision(),
        };
        return {
          write: { ...current, documents: current.documents.map((d) => (d.id === next.id ? next : d)), updated_at: ctx.now() },
          result: next,
        };
      });
      if (!updated) throw notFound('evaluation', input.evaluation_id);
      await refreshDocumentMetrics(ctx, updated.record.value, updated.result);
      const [rendered] = await renderDocuments(ctx, organizationId, [updated.result]);
      return rendered!;
    },

    async delete(organizationId: string, raw: DocumentRefInput): Promise<Deleted> {
      const input = parseInput(documentRefInputSchema, raw);
      const updated = await updateRecord(ctx.storage.evaluations, organizationId, input.evaluation_id, (current) => {
        findDocument(current, input.document_id);
        return {
          write: { ...current, documents: current.documents.filter((d) => d.id !== input.document_id), updated_at: ctx.now() },
          result: undefined,
        };
      });
      if (!updated) throw notFound('evaluation', input.evaluation_id);
      // Predictions of a deleted document are removed everywhere (docs/spec/service.md); renders already leave them out.
      const limit = pLimit(REFRESH_CONCURRENCY);
      await Promise.all(
        updated.record.value.iteration_ids.map((iterationId) =>
          limit(() =>
            updateRecord(ctx.storage.iterations, organizationId, iterationId, (iteration) => {
              if (!(input.document_id in iteration.predictions)) return { skip: true, result: undefined };
              const { [input.document_id]: _removed, ...rest } = iteration.predictions;
              return { write: { ...iteration, predictions: rest }, result: undefined };
            }),
          ),
        ),
      );
      await releaseFiles(ctx, organizationId, [input.document_id]);
      return { id: input.document_id, deleted: true, success: true };
    },
  };
}
