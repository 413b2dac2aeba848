import { z } from 'zod';
import { described } from './described.js';
import { documentIdParam, evaluationIdParam, jsonObject } from './json.js';
import { listQueryFields } from './lists.js';
import { metadataSchema } from './metadata.js';

/**
 * A document in a request: content as a base64 data URL in `mime_data.url`, or a reference to a file the
 * organization already stored, by `mime_data.file_id` or the document `id`.
 */
export const documentInputSchema = z.object({
  id: described(z.string().min(1).max(256).optional(), 'The `file_id` of a stored file, to refer to it instead of sending `mime_data.url`; when `url` is sent too, it must match the content.'),
  mime_data: z.object({
    filename: described(z.string().min(1, 'filename must not be empty').max(1024), 'The file name (1 to 1024 characters); its extension and the data URL\'s media type tell the file type.'),
    url: described(z.string().optional(), 'The content as a base64 data URL (`data:application/pdf;base64,...`). Leave out to refer to a stored file by `file_id`.'),
    file_id: described(z.string().min(1).max(256).optional(), 'A file this organization already stored (a document `id` from a response), instead of `url`.'),
  }),
  annotation: described(jsonObject().default({}), 'The ground truth, in the shape of the evaluation\'s json_schema. Defaults to `{}`.'),
  annotation_metadata: metadataSchema.nullable().optional(),
}).meta({ description: 'A document in a request: its file and its ground-truth annotation.' });
export type DocumentInput = z.input<typeof documentInputSchema>;

/** A document in a response (docs/spec/interface.md 2.2): `id` is its file_id, `url` is rebuilt from the file store. */
export const documentSchema = z.object({
  id: described(z.string(), 'The document\'s id: its `file_id`, a hash of its content (`file_...`). The same file has the same id everywhere.'),
  mime_data: z.object({
    filename: described(z.string(), 'The file name.'),
    url: described(z.string(), 'The file\'s content as a base64 data URL (`data:<mime>;base64,...`), rebuilt from the file store.'),
  }),
  annotation: described(jsonObject(), 'The ground truth: what a perfect extraction returns, in the shape of the evaluation\'s json_schema.'),
  annotation_metadata: metadataSchema.nullable(),
}).meta({ description: 'A document of an evaluation, with its ground-truth annotation.' });
export type Document = z.infer<typeof documentSchema>;

/**
 * `validate` (default true): check annotations against the evaluation's JSON schema, `required` not enforced (ground
 * truth may be partial); false stores them unchecked.
 */
export const validateAnnotationsField = {
  validate: described(z.boolean().default(true), 'Check each annotation against the evaluation\'s JSON schema (`required` not enforced): a mismatch is a 422 naming the path. Default true; false stores it unchecked.'),
};

export const addDocumentInputSchema = documentInputSchema.extend({ evaluation_id: evaluationIdParam, ...validateAnnotationsField });
export type AddDocumentInput = z.input<typeof addDocumentInputSchema>;

export const documentRefInputSchema = z.object({
  evaluation_id: described(evaluationIdParam, 'The evaluation\'s id.'),
  document_id: described(documentIdParam, 'The document\'s id: its `file_id` (`file_...`), as in the document\'s `id`.'),
});
export type DocumentRefInput = z.input<typeof documentRefInputSchema>;

/** PUT a document's annotation (docs/spec/interface.md 4.5). An omitted annotation_metadata stays as it is. */
export const updateDocumentInputSchema = documentRefInputSchema.extend({
  annotation: described(jsonObject(), 'The new ground truth. Every iteration\'s metrics are recomputed.'),
  annotation_metadata: metadataSchema.nullable().optional(),
  ...validateAnnotationsField,
});
export type UpdateDocumentInput = z.input<typeof updateDocumentInputSchema>;

/** The path of a document's content on the REST API (relative to where the API is mounted). */
export const documentContentPath = (evaluationId: string, documentId: string) =>
  `/v1/evals/${encodeURIComponent(evaluationId)}/documents/${encodeURIComponent(documentId)}/content`;

/**
 * A document in a list (docs/spec/service.md, Reads): no annotation, no content; `?expand=documents` for those.
 * `mime_data` is the interface's `{filename, url}` with `url` the path of the file's content on this server
 * (`GET /v1/evals/{evaluation_id}/documents/{document_id}/content`, authenticated like every call), not a data URL,
 * so a list stays light and still parses as the reference SDK's documents. The service answers it relative to where
 * the REST API is mounted; the REST handler puts it under its `basePath` (`/evals/v1/...`).
 */
export const documentSummarySchema = z.object({
  id: described(z.string(), 'The document\'s id: its `file_id`.'),
  filename: described(z.string(), 'The file name it came with.'),
  mime_type: described(z.string(), 'The media type of its content.'),
  size: described(z.number().int(), 'The size of its content in bytes.'),
  mime_data: z.object({
    filename: described(z.string(), 'The file name.'),
    url: described(z.string(), 'The path of the file\'s content on this server, `/v1/evals/{evaluation_id}/documents/{document_id}/content` ' +
      'under the API\'s base path when it is mounted under one (`/evals/v1/...`), authenticated like every call; not a ' +
      'data URL: lists stay light.'),
  }),
}).meta({ description: 'A document in a list: no annotation, no content (`expand=documents` for those).' });
export type DocumentSummary = z.infer<typeof documentSummarySchema>;

/** Most objects a list page may carry when it expands every document to its content (data URL). */
export const MAX_EXPANDED_PAGE = 10;

/** `?expand=documents`: lists carry whole documents (annotation and data URL), at most {@link MAX_EXPANDED_PAGE} a page. */
export const expandField = {
  expand: described(z.enum(['documents']).optional(), '`documents`: whole documents (annotation and content as a data URL) instead of summaries; at most 10 per page then.'),
};

/** Documents list in the evaluation's document order (`asc`, the default) or its reverse. */
export const listDocumentsInputSchema = z.object({
  evaluation_id: evaluationIdParam,
  ...listQueryFields,
  order: described(z.enum(['asc', 'desc']).default('asc'), 'In the evaluation\'s document order (`asc`, the default) or its reverse (`desc`).'),
  ...expandField,
});
export type ListDocumentsInput = z.input<typeof listDocumentsInputSchema>;

/** GET /v1/evals/{evaluation_id}/documents/{document_id}/content: the file's bytes. */
export const documentContentInputSchema = documentRefInputSchema;
