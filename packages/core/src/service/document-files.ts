import { documentTotals } from './metric-cache.js';
import { computeFileId } from '../identifiers/index.js';
import pLimit from 'p-limit';
import type { ErrorIssue } from '../errors.js';
import type { ExtractionDocument } from '../extractor.js';
import type { JsonObject } from '../json/assert-json.js';
import type { Metadata } from '../schemas/metadata.js';
import type { DocumentRecord, StoredFile } from '../storage.js';
import type { ServiceContext } from './context.js';
import { isIssue, parseDataUrl } from './data-url.js';
import { FILE_READ_CONCURRENCY, missingFile } from './reads.js';
import { invalidRequest } from './validate.js';

/** Joins a dotted path; the empty path is the request body itself. */
export function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** A document of a request, resolved to its file_id; `content` when the request carried the bytes. */
export interface PreparedDocument {
  path: string;
  file_id: string;
  filename: string;
  content?: StoredFile;
  annotation: JsonObject;
  annotation_metadata: Metadata | null;
}

interface DocumentLike {
  id?: string;
  mime_data: { filename: string; url?: string; file_id?: string };
  annotation: JsonObject;
  annotation_metadata?: Metadata | null;
}

/**
 * Resolves a document to its file_id (docs/spec/service.md, Documents and files): content is hashed; a reference names a
 * stored file by `mime_data.file_id` or `id`. A client `id` that differs from the content's file_id is an issue.
 */
export function prepareDocument(document: DocumentLike, path: string): PreparedDocument | ErrorIssue[] {
  const base = {
    path,
    filename: document.mime_data.filename,
    annotation: document.annotation,
    annotation_metadata: document.annotation_metadata ?? null,
  };
  const { url, file_id } = document.mime_data;
  if (url !== undefined) {
    const parsed = parseDataUrl(url, at(path, 'mime_data.url'));
    if (isIssue(parsed)) return [parsed];
    const computed = computeFileId(parsed.bytes);
    const issues: ErrorIssue[] = [];
    if (document.id !== undefined && document.id !== computed) {
      issues.push({ path: at(path, 'id'), message: `the content's file_id is ${computed}, not ${document.id}` });
    }
    if (file_id !== undefined && file_id !== computed) {
      issues.push({ path: at(path, 'mime_data.file_id'), message: `the content's file_id is ${computed}, not ${file_id}` });
    }
    if (issues.length > 0) return issues;
    return { ...base, file_id: computed, content: parsed };
  }
  if (file_id !== undefined && document.id !== undefined && file_id !== document.id) {
    return [{ path: at(path, 'id'), message: `id ${document.id} and mime_data.file_id ${file_id} name different files` }];
  }
  const reference = file_id ?? document.id;
  if (reference === undefined) {
    return [
      {
        path: at(path, 'mime_data'),
        message: 'give the content as mime_data.url (a base64 data URL) or name a stored file with mime_data.file_id',
      },
    ];
  }
  return { ...base, file_id: reference };
}

/** Prepares every document, reporting all issues at once, and duplicates within the request. */
export function prepareDocuments(documents: readonly DocumentLike[], path: string): PreparedDocument[] {
  const issues: ErrorIssue[] = [];
  const prepared: PreparedDocument[] = [];
  const seen = new Map<string, string>();
  documents.forEach((document, i) => {
    const result = prepareDocument(document, at(path, String(i)));
    if (Array.isArray(result)) {
      issues.push(...result);
      return;
    }
    const first = seen.get(result.file_id);
    if (first !== undefined) {
      issues.push({ path: result.path, message: `the same file (${result.file_id}) as ${first}; an evaluation holds a file once` });
      return;
    }
    seen.set(result.file_id, result.path);
    prepared.push(result);
  });
  if (issues.length > 0) throw invalidRequest(issues);
  return prepared;
}

/**
 * Takes one reference on each document's file (storing the content when given) in one storage commit. A reference
 * to an unknown file is a 422; then every reference taken here is released again (one commit), so nothing is left
 * behind. A store failure leaves nothing taken (retainMany is all or nothing).
 */
export async function retainFiles(
  ctx: ServiceContext,
  organizationId: string,
  documents: readonly PreparedDocument[],
): Promise<void> {
  if (documents.length === 0) return;
  const results = await ctx.storage.files.retainMany(
    organizationId,
    documents.map((d) => ({ fileId: d.file_id, content: d.content })),
  );
  const unknown: ErrorIssue[] = documents
    .filter((_, i) => !results[i])
    .map((d) => ({ path: at(d.path, 'mime_data.file_id'), message: `no file ${d.file_id} is stored in this organization` }));
  if (unknown.length === 0) return;
  await releaseFiles(ctx, organizationId, documents.filter((_, i) => results[i]).map((d) => d.file_id));
  throw invalidRequest(unknown);
}

/** Releases one reference per id in one commit; a failure is swallowed (a leaked file is kept, never a lost one). */
export async function releaseFiles(ctx: ServiceContext, organizationId: string, fileIds: readonly string[]) {
  if (fileIds.length === 0) return;
  await ctx.storage.files.releaseMany(organizationId, fileIds).catch(() => undefined);
}

/**
 * The media type and size of each document's file: from the request's content when it carried the bytes, else read
 * from the file store (a reference to a stored file), at most {@link FILE_READ_CONCURRENCY} at once.
 */
export async function describeFiles(
  ctx: ServiceContext,
  organizationId: string,
  documents: readonly PreparedDocument[],
): Promise<Array<{ mime_type: string; size: number }>> {
  const limit = pLimit(FILE_READ_CONCURRENCY);
  return Promise.all(
    documents.map((d) =>
      limit(async () => {
        const file = d.content ?? (await ctx.storage.files.get(organizationId, d.file_id));
        if (!file) throw missingFile(ctx, d.file_id);
        return { mime_type: file.mime_type, size: file.bytes.byteLength };
      }),
    ),
  );
}

/** The stored record of a prepared document in an evaluation. */
export function toDocumentRecord(
  document: PreparedDocument,
  file: { mime_type: string; size: number },
  parent: { organization_id: string; evaluation_id: string },
  revision: string,
  now: string,
): DocumentRecord {
  return {
    id: document.file_id,
    organization_id: parent.organization_id,
    parent_id: parent.evaluation_id,
    updated_at: now,
    filename: document.filename,
    mime_type: file.mime_type,
    size: file.size,
    annotation: document.annotation,
    annotation_metadata: document.annotation_metadata,
    revision,
    totals: documentTotals(document.annotation),
  };
}

/** A stored document's call input from its file as read (null: the file is missing, a storage error). */
function extractionDocumentOf(ctx: ServiceContext, document: DocumentRecord, file: StoredFile | null): ExtractionDocument {
  if (!file) throw missingFile(ctx, document.id);
  return { id: document.id, filename: document.filename, mime_type: file.mime_type, bytes: file.bytes };
}

/**
 * The reads of `fileIds`' files, one promise each, in their order: one `files.getMany` (one round trip) for two or
 * more when the store has it, else a `get` per file.
 */
function fileReads(ctx: ServiceContext, organizationId: string, fileIds: readonly string[]): Array<Promise<StoredFile | null>> {
  const { files } = ctx.storage;
  if (!files.getMany || fileIds.length < 2) return fileIds.map((id) => files.get(organizationId, id));
  const group = files.getMany(organizationId, fileIds);
  return fileIds.map((_, k) => group.then((found) => found[k] ?? null));
}

/** The files of many stored documents, for an extractor, in their order ({@link fileReads}). A missing file fails the whole read. */
export async function loadExtractionDocuments(
  ctx: ServiceContext,
  organizationId: string,
  documents: readonly DocumentRecord[],
): Promise<ExtractionDocument[]> {
  const reads = fileReads(ctx, organizationId, documents.map((d) => d.id));
  return Promise.all(reads.map((read, i) => read.then((file) => extractionDocumentOf(ctx, documents[i]!, file))));
}

/** Files of a batch read in one `files.getMany` when the store has it (a `get` per file else, fewer ahead). */
const FILE_READ_GROUP = 8;
/** Documents whose file is being read while the batch's earlier documents are called, without `getMany`. */
const FILE_READ_AHEAD = 2;

/**
 * Reads the files of `fileIds` (a queued batch's documents, in order; a document's id is its file's) ahead of their
 * calls, and answers a document's file when it is taken: with the store's `getMany`, {@link FILE_READ_GROUP} files
 * in one round trip, the next group asked for two documents before the group's end; else a `get` per file,
 * {@link FILE_READ_AHEAD} ahead of the one taken. No call waits for its file but the first, and few files wait in
 * memory. A file read for a document that is then skipped is dropped.
 */
export function readFilesAhead(ctx: ServiceContext, organizationId: string, fileIds: readonly string[]) {
  const { files } = ctx.storage;
  const ahead = files.getMany ? FILE_READ_GROUP : FILE_READ_AHEAD;
  const reading = new Map<string, Promise<StoredFile | null>>();
  let next = 0;
  const fill = (upTo: number) => {
    const ids = fileIds.slice(next, Math.max(next, Math.min(upTo, fileIds.length)));
    next += ids.length;
    fileReads(ctx, organizationId, ids).forEach((file, k) => {
      file.catch(() => undefined); // answered to the document's run (or dropped with a skipped document)
      if (!reading.has(ids[k]!)) reading.set(ids[k]!, file);
    });
  };
  fill(ahead);
  return async (document: DocumentRecord): Promise<ExtractionDocument> => {
    const file = reading.get(document.id) ?? files.get(organizationId, document.id);
    reading.delete(document.id);
    const index = fileIds.indexOf(document.id);
    if (index + 1 + FILE_READ_AHEAD > next) fill(index + 1 + ahead);
    return extractionDocumentOf(ctx, document, await file);
  };
}
