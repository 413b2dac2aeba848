// The annotation import's pure parts (no tRPC client, no DOM): the file as the import takes it, a previewed row's kind.
import type { RouterInputs, RouterOutputs } from './trpc.js';

type ImportRow = RouterOutputs['evals']['documents']['import']['rows'][number];
export type ImportFile = Pick<RouterInputs['evals']['documents']['import'], 'format' | 'content'>;

/**
 * A file of ground truths as the import takes it: CSV as it is (a `filename` or `document_id` column, one column per
 * leaf path), JSONL as it is, and a JSON array of `{ filename | document_id, annotation }` as JSONL.
 */
export function importFile(name: string, text: string): ImportFile {
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv')) return { format: 'csv', content: text };
  if (lower.endsWith('.json')) {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) throw new Error('a JSON file must hold an array of { "filename" or "document_id", "annotation" }');
    return { format: 'jsonl', content: value.map((row) => JSON.stringify(row)).join('\n') };
  }
  return { format: 'jsonl', content: text };
}

/**
 * What a previewed row would do: be written, name no document of the evaluation, or be refused for its content. Read
 * from the service's messages (a filename no document has, one that several share, a document id that does not
 * exist: `notFound`'s wording); test/annotations.test.ts runs a real preview so a reworded message fails there.
 */
export function rowKind(row: ImportRow): 'matched' | 'unmatched' | 'invalid' {
  if (row.status === 'updated') return 'matched';
  return row.issues.some((issue) => /no document named|documents are named|no document with id/i.test(issue.message)) ? 'unmatched' : 'invalid';
}
