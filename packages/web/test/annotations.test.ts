// The annotation tools' pure parts: a file of ground truths as the import takes it, a previewed row's kind, and the
// server's issues placed under their fields in the generated form.
import { createDocevals } from '@docevals/core';
import { memoryStorage } from '@docevals/core/storage-kit';
import { describe, expect, it } from 'vitest';
import { importFile, rowKind } from '../src/annotation-files.js';
import { issuesToErrorSchema } from '../src/components/SchemaForm.js';

describe('importFile', () => {
  it('passes CSV and JSONL through and turns a JSON array into JSONL', () => {
    expect(importFile('truth.CSV', 'filename,total\na.txt,1')).toEqual({ format: 'csv', content: 'filename,total\na.txt,1' });
    expect(importFile('truth.jsonl', '{"filename":"a.txt","annotation":{}}')).toEqual({ format: 'jsonl', content: '{"filename":"a.txt","annotation":{}}' });
    const rows = [{ filename: 'a.txt', annotation: { total: 1 } }, { document_id: 'doc_2', annotation: { total: 2 } }];
    expect(importFile('truth.json', JSON.stringify(rows))).toEqual({ format: 'jsonl', content: rows.map((row) => JSON.stringify(row)).join('\n') });
  });

  it('refuses a JSON file that is not an array, and one that is not JSON', () => {
    expect(() => importFile('truth.json', '{"filename":"a.txt"}')).toThrow(/array/);
    expect(() => importFile('truth.json', 'filename,total')).toThrow(SyntaxError);
  });
});

describe('rowKind', () => {
  const row = (status: 'updated' | 'refused', message = '') => ({ row: 1, document_id: null, filename: 'a.txt', status, issues: message ? [{ path: '1.filename', message }] : [] });
  it('tells matched, unmatched and invalid rows apart', () => {
    expect(rowKind(row('updated'))).toBe('matched');
    expect(rowKind(row('refused', 'must be number'))).toBe('invalid');
  });

  it("reads the service's own preview: an unknown filename, a shared filename and an unknown document id are unmatched", async () => {
    const docevals = createDocevals({ storage: memoryStorage() });
    const text = (t: string) => `data:text/plain;base64,${Buffer.from(t).toString('base64')}`;
    const evaluation = await docevals.evals.create('org', {
      name: 'preview',
      json_schema: { type: 'object', properties: { total: { type: 'number' } } },
      documents: ['a.txt', 'twin.txt', 'twin.txt'].map((filename, i) => ({ mime_data: { filename, url: text(`${filename} ${i}`) }, annotation: { total: 0 } })),
    });
    const content = [
      { filename: 'a.txt', annotation: { total: 1 } },
      { filename: 'nowhere.txt', annotation: { total: 1 } },
      { filename: 'twin.txt', annotation: { total: 1 } },
      { document_id: 'doc_missing', annotation: { total: 1 } },
      { filename: 'a.txt', annotation: { total: 'many' } },
    ].map((r) => JSON.stringify(r)).join('\n');
    const preview = await docevals.evals.documents.import('org', { evaluation_id: evaluation.id, format: 'jsonl', content, dry_run: true });
    expect(preview.rows.map(rowKind)).toEqual(['matched', 'unmatched', 'unmatched', 'unmatched', 'invalid']);
    await docevals.close();
  });
});

describe('issuesToErrorSchema', () => {
  it('puts each issue under its field, the root one at the root', () => {
    const schema = issuesToErrorSchema([
      { path: 'annotation.bill_to.name', message: 'must be string' },
      { path: 'annotation.line_items.0.amount', message: 'must be number' },
      { path: 'annotation', message: 'must be object' },
    ]);
    expect(schema).toEqual({
      __errors: ['must be object'],
      bill_to: { name: { __errors: ['must be string'] } },
      line_items: { 0: { amount: { __errors: ['must be number'] } } },
    });
  });
});
