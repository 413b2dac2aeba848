import { z } from 'zod';
import * as schemas from '../schemas/index.js';
import { operation, streamOperation } from './define.js';

/** The documents of an evaluation and their annotations. */
export const documentOperations = {
  'evals.documents.add': operation({
    procedure: 'mutation',
    input: schemas.addDocumentInputSchema,
    output: schemas.documentSchema,
    call: (d, org, input) => d.evals.documents.add(org, input),
    rest: {
      method: 'post',
      path: '/v1/evals/{evaluation_id}/documents',
      operationId: 'addDocument',
      tag: 'Documents',
      summary: 'Add a document to an evaluation',
      description:
        'Adds a document at the end of the evaluation. Existing iterations get an empty prediction for it, ' +
        'counted as pending until the iteration is re-run for it (`POST .../process` with `only_missing`).',
      input: 'body',
    },
  }),
  'evals.documents.list': operation({
    procedure: 'query',
    input: schemas.listDocumentsInputSchema,
    output: schemas.listResultSchema(z.union([schemas.documentSummarySchema, schemas.documentSchema])),
    call: (d, org, input) => d.evals.documents.list(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/documents',
      operationId: 'listDocuments',
      tag: 'Documents',
      summary: 'List an evaluation\'s documents: summaries; `expand=documents` for annotations and contents',
      description:
        'Lists an evaluation\'s documents in the evaluation\'s order, a page at a time, as summaries (id, ' +
        'filename, media type, size); `expand=documents` gives annotations and contents, at most 10 a page.',
      input: 'query',
    },
  }),
  'evals.documents.get': operation({
    procedure: 'query',
    input: schemas.documentRefInputSchema,
    output: schemas.documentSchema,
    call: (d, org, input) => d.evals.documents.get(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/documents/{document_id}',
      operationId: 'getDocument',
      tag: 'Documents',
      summary: 'Get a document',
      description: 'One document of an evaluation, with its content as a data URL and its annotation.',
    },
  }),
  /** The document's file as it was added (the `mime_data.url` of list summaries): bytes, not JSON. */
  'evals.documents.content': streamOperation({
    input: schemas.documentContentInputSchema,
    output: z.string(),
    call: (d, org, input) => d.evals.documents.content(org, input),
    rest: {
      method: 'get',
      path: '/v1/evals/{evaluation_id}/documents/{document_id}/content',
      operationId: 'getDocumentContent',
      tag: 'Documents',
      summary: 'A document\'s file, as it was added',
      description:
        'The document\'s file: its bytes with its media type, `Content-Disposition` naming it. Lists point here ' +
        '(`mime_data.url` of a document summary), so they stay light.',
      file: ['application/octet-stream'],
    },
  }),
  'evals.documents.update': operation({
    procedure: 'mutation',
    input: schemas.updateDocumentInputSchema,
    output: schemas.documentSchema,
    call: (d, org, input) => d.evals.documents.update(org, input),
    rest: {
      method: 'put',
      path: '/v1/evals/{evaluation_id}/documents/{document_id}',
      operationId: 'updateDocumentAnnotation',
      tag: 'Documents',
      summary: 'Update a document\'s annotation (recomputes every iteration\'s metrics)',
      description: 'Replaces a document\'s annotation (its ground truth) and recomputes the metrics of every iteration.',
      input: 'body',
    },
  }),
  'evals.documents.delete': operation({
    procedure: 'mutation',
    input: schemas.documentRefInputSchema,
    output: schemas.deletedSchema,
    call: (d, org, input) => d.evals.documents.delete(org, input),
    rest: {
      method: 'delete',
      path: '/v1/evals/{evaluation_id}/documents/{document_id}',
      operationId: 'deleteDocument',
      tag: 'Documents',
      summary: 'Delete a document (and its predictions)',
      description: 'Removes a document from the evaluation, with its predictions in every iteration (metrics recomputed).',
    },
  }),
  'evals.documents.import': operation({
    procedure: 'mutation',
    input: schemas.importAnnotationsInputSchema,
    output: schemas.importAnnotationsResultSchema,
    call: (d, org, input) => d.evals.documents.import(org, input),
    rest: {
      method: 'post',
      path: '/v1/evals/{evaluation_id}/documents/import',
      operationId: 'importAnnotations',
      tag: 'Documents',
      summary: 'Update annotations from a JSONL or CSV file, row by row; refused rows change nothing',
      description:
        'Updates annotations from a file, row by row: JSONL of `{"document_id" | "filename", "annotation"}`, ' +
        'or CSV with a `document_id` or `filename` column and one column per leaf path (typed by the schema). ' +
        'A refused row (unknown document, wrong type) changes nothing; each updated document\'s metrics are ' +
        'refreshed in every iteration. `dry_run` (`?dry_run=true` with a file body) previews it: every row answered as ' +
        'the import would answer it, nothing written.',
      input: 'body',
      textBodies: { 'text/csv': 'csv', 'application/x-ndjson': 'jsonl', 'application/jsonl': 'jsonl' },
    },
  }),
} as const;
