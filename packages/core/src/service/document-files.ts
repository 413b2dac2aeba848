import { computeFileId } from '../identifiers/index.js';
import { DocevalsError, type ErrorIssue } from '../errors.js';
import type { ExtractionDocument } from '../extractor.js';
import type { JsonObject } from '../json/assert-json.js';
import type { Metadata } from '../schemas/metadata.js';
import type { StoredDocument, StoredFile } from '../storage.js';
import type { ServiceContext } from './context.js';
import { isIssue, parseDataUrl } from './data-url.js';
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
 * Takes one reference on each document's file (storing the content when given). A reference to an unknown file is
 * a 422; on any failure every reference taken here is released again, so nothing is left behind.
 */
export async function retainFiles(
  ctx: ServiceContext,
  organizationId: string,
  documents: readonly PreparedDocument[],
): Promise<void> {
  const results = await Promise.allSettled(
    documents.map((d) => ctx.storage.files.retain(organizationId, d.file_id, d.content)),
  );
  const retained = documents.filter((_, i) => results[i]!.status === 'fulfilled' && (results[i] as PromiseFulfilledResult<boolean>).value);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const unknown: ErrorIssue[] = documents
    .filter((_, i) => results[i]!.status === 'fulfilled' && !(results[i] as PromiseFulfilledResult<boolean>).value)
    .map((d) => ({ path: at(d.path, 'mime_data.file_id'), message: `no file ${d.file_id} is stored in this organization` }));
  if (!failure && unknown.length === 0) return;
  await releaseFiles(ctx, organizationId, retained.map((d) => d.file_id));
  if (failure) throw failure.reason;
  throw invalidRequest(unknown);
}

/** Releases one reference per id; failures are swallowed (a leaked file is kept, never a lost one). */
export async function releaseFiles(ctx: ServiceContext, organizationId: string, fileIds: readonly string[]) {
  await Promise.allSettled(fileIds.map((id) => ctx.storage.files.release(organizationId, id)));
}

export function toStoredDocument(document: PreparedDocument, revision: string): StoredDocument {
  return {
    id: document.file_id,
    filename: document.filename,
    annotation: document.annotation,
    annotation_metadata: document.annotation_metadata,
    revision,
  };
}

/** The bytes of a stored document, for an extractor. */
export async function loadExtractionDocument(
  ctx: ServiceContext,
  organizationId: string,
  document: StoredDocument,
): Promise<ExtractionDocument> {
  const file = await ctx.storage.files.get(organizationId, document.id);
  if (!file) {
    throw new DocevalsError('storage_error', `The ${ctx.storage.name} storage has no content for file ${document.id}.`);
  }
  return { id: document.id, filename: document.filename, mime_type: file.mime_type, bytes: file.bytes };
}
