import { notFound } from '../errors.js';
import {
  addDocumentInputSchema,
  documentRefInputSchema,
  listDocumentsInputSchema,
  MAX_EXPANDED_PAGE,
  updateDocumentInputSchema,
  type AddDocumentInput,
  type Deleted,
  type Document,
  type DocumentRefInput,
  type DocumentSummary,
  type ListDocumentsInput,
  type ListResult,
  type UpdateDocumentInput,
} from '../schemas/index.js';
import type { JsonObject } from '../json/assert-json.js';
import type { Metadata } from '../schemas/metadata.js';
import type { DocumentRecord, RecordPage } from '../storage.js';
import { bindContext } from './bind-context.js';
import type { ServiceContext } from './context.js';
import { assertAnnotations } from '../json-schema/annotation.js';
import { describeFiles, prepareDocument, releaseFiles, retainFiles, toDocumentRecord } from './document-files.js';
import { forEachIteration, refreshPrediction, refreshPredictions } from './every-iteration.js';
import { newRevision } from './ids.js';
import { documentTotals } from './metric-cache.js';
import { assertOneCursor, listMetadata, pageOf, unknownCursor } from './lists.js';
import { missingFile, readAllDocuments, requireDocument, requireEvaluation } from './reads.js';
import { documentSummary, renderDocuments } from './render.js';
import { updateChild, updateChildren, updateRecord } from './update-record.js';
import { invalidRequest, parseInput } from './validate.js';

/** A document's file, for a transport to send as it is (`GET .../documents/{document_id}/content`). */
export interface DocumentContent {
  filename: string;
  content_type: string;
  chunks: AsyncIterable<Uint8Array>;
}

/** 422 for a page of whole documents larger than {@link MAX_EXPANDED_PAGE} (docs/spec/service.md, Reads). */
export function assertExpandLimit(input: { expand?: string; limit: number }): void {
  if (input.expand !== undefined && input.limit > MAX_EXPANDED_PAGE) {
    throw invalidRequest([{ path: 'limit', message: `at most ${MAX_EXPANDED_PAGE} per page with expand=documents` }]);
  }
}

/**
 * An annotation edit: the document record by compare-and-set, then its prediction in every iteration refreshed
 * (metrics and totals): O(iterations) small writes. Returns the document as written.
 */
export async function writeAnnotation(
  ctx: ServiceContext,
  organizationId: string,
  input: {
    evaluation_id: string;
    document_id: string;
    annotation: JsonObject;
    annotation_metadata?: Metadata | null;
    /** false: store the annotation without checking it against the evaluation's schema. */
    validate?: boolean;
  },
): Promise<DocumentRecord> {
  const { value: owner } = await requireEvaluation(ctx, organizationId, input.evaluation_id);
  assertAnnotations(owner.json_schema, [{ annotation: input.annotation, path: 'annotation' }], input.validate);
  const updated = await updateChild(ctx.storage.documents, organizationId, input.evaluation_id, input.document_id, (current) => ({
    write: {
      ...current,
      annotation: input.annotation,
      annotation_metadata: input.annotation_metadata !== undefined ? input.annotation_metadata : current.annotation_metadata,
      revision: newRevision(current.revision),
      totals: documentTotals(input.annotation),
      updated_at: ctx.now(),
    },
    result: undefined,
  }));
  if (!updated) throw notFound('document', input.document_id);
  // The iterations as listed after the write: one attached before it is refreshed here, one attached after it
  // settles its own predictions against the documents it reads then.
  const evaluation = await requireEvaluation(ctx, organizationId, input.evaluation_id).then((e) => e.value);
  await forEachIteration(ctx, evaluation, (iterationId) =>
    refreshPrediction(ctx, organizationId, evaluation.id, iterationId, input.document_id),
  );
  return updated.record.value;
}

/**
 * Annotation edits of many documents of one evaluation (a batch of an import, a few hundred): the document records
 * in one `putMany` (compare-and-set on each version; conflicts read again), then, for every iteration listed after
 * that write, the predictions of those documents refreshed in one `putMany` each. The annotations must already be
 * checked against the schema and name each document once. Returns the ids that name no document (nothing written
 * for them).
 */
export async function writeAnnotations(
  ctx: ServiceContext,
  organizationId: string,
  evaluationId: string,
  edits: ReadonlyArray<{ document_id: string; annotation: JsonObject }>,
): Promise<string[]> {
  const ids = edits.map((e) => e.document_id);
  const annotations = new Map(edits.map((e) => [e.document_id, e.annotation]));
  // `decide` gets the children still to write: after a conflict, only those whose version moved.
  const written = await updateChildren(ctx.storage.documents, organizationId, evaluationId, ids, (documents, todo) => {
    const now = ctx.now();
    return documents.map((current, i) =>
      current
        ? { write: withAnnotation(current, annotations.get(todo[i]!)!, now), result: true }
        : { skip: true as const, result: false },
    );
  });
  const updated = ids.filter((_, i) => written[i]);
  // As for one edit: the iterations listed after the write are refreshed here; one attached later settles itself.
  const evaluation = await requireEvaluation(ctx, organizationId, evaluationId).then((e) => e.value);
  if (updated.length > 0) {
    await forEachIteration(ctx, evaluation, (iterationId) => refreshPredictions(ctx, organizationId, evaluationId, iterationId, updated));
  }
  return ids.filter((_, i) => !written[i]);
}

/** The document with a new annotation: a new revision, its totals (labeled or not) with it. */
function withAnnotation(current: DocumentRecord, annotation: JsonObject, now: string): DocumentRecord {
  return { ...current, annotation, revision: newRevision(current.revision), totals: documentTotals(annotation), updated_at: now };
}

export function documentOperations(ctx: ServiceContext) {
  /**
   * A page of the evaluation's documents: summaries `{id, filename, mime_type, size}`; whole documents with
   * `expand: 'documents'`.
   */
  function list(organizationId: string, input: ListDocumentsInput & { expand: 'documents' }): Promise<ListResult<Document>>;
  function list(organizationId: string, input: ListDocumentsInput): Promise<ListResult<DocumentSummary | Document>>;
  function list(organizationId: string, input: ListDocumentsInput): Promise<ListResult<DocumentSummary | Document>> {
    return listDocuments(ctx, organizationId, input);
  }

  return {
    list,
    ...bindContext(ctx, {
      /**
       * Reserves a place under the limit (compare-and-set on `document_count`), takes the file reference, inserts the
       * document record only if the evaluation does not hold that file yet; every step is undone if a later one fails.
       * A document added after an iteration ran is pending there.
       */
      add: addDocument,
      /**
       * The document's file as it was added (`mime_data.url` of a list's summaries points here): its bytes, media type
       * and filename, for a transport to send as they are.
       */
      content,
      get: getDocument,
      /**
       * An annotation edit: the document record by compare-and-set, then its prediction in every iteration refreshed
       * (metrics and totals): O(iterations) small writes.
       */
      update: updateDocument,
      /**
       * The document record first (whoever deletes it releases its file, so a file is released once), then its
       * prediction in every iteration, then the evaluation's counter.
       */
      delete: deleteDocument,
    }),
  };
}

/** Moves the evaluation's reservation counter by `delta`; false when the evaluation is gone. */
async function adjustCount(ctx: ServiceContext, organizationId: string, evaluationId: string, delta: number): Promise<boolean> {
  const updated = await updateRecord(ctx.storage.evaluations, organizationId, evaluationId, (current) => ({
    write: { ...current, document_count: Math.max(0, current.document_count + delta), updated_at: ctx.now() },
    result: undefined,
  }));
  return updated !== null;
}

async function listDocuments(ctx: ServiceContext, organizationId: string, raw: ListDocumentsInput): Promise<ListResult<Document | DocumentSummary>> {
  const input = parseInput(listDocumentsInputSchema, raw);
  assertOneCursor(input);
  assertExpandLimit(input);
  await requireEvaluation(ctx, organizationId, input.evaluation_id);
  let page: RecordPage<DocumentRecord> | null;
  if (input.order === 'asc' && input.before === undefined) {
    // The store's own order and cursor: reads one page.
    page = await ctx.storage.documents.list(organizationId, input.evaluation_id, { limit: input.limit, after: input.after });
  } else {
    // The reverse order or a `before` cursor: the store pages forward only, so walk the documents (small records).
    page = pageOf(await readAllDocuments(ctx, organizationId, input.evaluation_id), input);
  }
  if (!page) throw unknownCursor(input);
  return {
    data: input.expand ? await renderDocuments(ctx, organizationId, page.items) : page.items.map(documentSummary),
    list_metadata: listMetadata(page, input),
  };
}

async function addDocument(ctx: ServiceContext, organizationId: string, raw: AddDocumentInput): Promise<Document> {
  const input = parseInput(addDocumentInputSchema, raw);
  const document = prepareDocument(input, '');
  if (Array.isArray(document)) throw invalidRequest(document);
  await requireEvaluation(ctx, organizationId, input.evaluation_id);
  const reserved = await updateRecord(ctx.storage.evaluations, organizationId, input.evaluation_id, (current) => {
    assertAnnotations(current.json_schema, [{ annotation: document.annotation, path: 'annotation' }], input.validate);
    if (current.document_count >= ctx.limits.maxDocumentsPerEvaluation) {
      throw invalidRequest([{ path: '', message: `the evaluation already has ${current.document_count} documents, the limit` }]);
    }
    return { write: { ...current, document_count: current.document_count + 1, updated_at: ctx.now() }, result: undefined };
  });
  if (!reserved) throw notFound('evaluation', input.evaluation_id);
  let retained = false;
  try {
    await retainFiles(ctx, organizationId, [document]);
    retained = true;
    const [file] = await describeFiles(ctx, organizationId, [document]);
    const record = toDocumentRecord(
      document,
      file!,
      { organization_id: organizationId, evaluation_id: input.evaluation_id },
      newRevision(),
      ctx.now(),
    );
    const stored = await ctx.storage.documents.put(record, 0);
    if (!stored) throw invalidRequest([{ path: 'id', message: `the evaluation already holds this file (${record.id})` }]);
    // The evaluation may have been deleted meanwhile: then this document must not outlive it.
    if (!(await ctx.storage.evaluations.get(organizationId, input.evaluation_id))) {
      const removed = await ctx.storage.documents.delete(organizationId, input.evaluation_id, record.id, stored.version);
      retained = removed;
      throw notFound('evaluation', input.evaluation_id);
    }
    const [rendered] = await renderDocuments(ctx, organizationId, [record], new Map(document.content ? [[record.id, document.content]] : []));
    return rendered!;
  } catch (error) {
    if (retained) await releaseFiles(ctx, organizationId, [document.file_id]);
    await adjustCount(ctx, organizationId, input.evaluation_id, -1).catch(() => undefined);
    throw error;
  }
}

async function content(ctx: ServiceContext, organizationId: string, raw: DocumentRefInput): Promise<DocumentContent> {
  const input = parseInput(documentRefInputSchema, raw);
  await requireEvaluation(ctx, organizationId, input.evaluation_id);
  const found = await requireDocument(ctx, organizationId, input.evaluation_id, input.document_id);
  const file = await ctx.storage.files.get(organizationId, found.value.id);
  if (!file) throw missingFile(ctx, found.value.id);
  const bytes = file.bytes;
  return {
    filename: found.value.filename,
    content_type: file.mime_type,
    chunks: (async function* () {
      yield bytes;
    })(),
  };
}

async function getDocument(ctx: ServiceContext, organizationId: string, raw: DocumentRefInput): Promise<Document> {
  const input = parseInput(documentRefInputSchema, raw);
  await requireEvaluation(ctx, organizationId, input.evaluation_id);
  const found = await requireDocument(ctx, organizationId, input.evaluation_id, input.document_id);
  const [rendered] = await renderDocuments(ctx, organizationId, [found.value]);
  return rendered!;
}

async function updateDocument(ctx: ServiceContext, organizationId: string, raw: UpdateDocumentInput): Promise<Document> {
  const input = parseInput(updateDocumentInputSchema, raw);
  const record = await writeAnnotation(ctx, organizationId, input);
  const [rendered] = await renderDocuments(ctx, organizationId, [record]);
  return rendered!;
}

async function deleteDocument(ctx: ServiceContext, organizationId: string, raw: DocumentRefInput): Promise<Deleted> {
  const input = parseInput(documentRefInputSchema, raw);
  await requireEvaluation(ctx, organizationId, input.evaluation_id);
  if (!(await ctx.storage.documents.delete(organizationId, input.evaluation_id, input.document_id))) {
    throw notFound('document', input.document_id);
  }
  // Iterations as listed after the delete (see update): a prediction of this document never outlives it.
  const evaluation = await ctx.storage.evaluations.get(organizationId, input.evaluation_id);
  if (evaluation) {
    await forEachIteration(ctx, evaluation.value, (iterationId) =>
      ctx.storage.predictions.delete(organizationId, iterationId, input.document_id),
    );
  }
  // When the evaluation went meanwhile, its delete may or may not have listed this document: keep the file
  // (a leak the orphan sweep reclaims) rather than risk releasing it twice.
  if (await adjustCount(ctx, organizationId, input.evaluation_id, -1)) await releaseFiles(ctx, organizationId, [input.document_id]);
  return { id: input.document_id, deleted: true, success: true };
}
