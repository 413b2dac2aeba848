import { compareDocuments } from '../../src/metrics/index.js';
import {
  createExtractionRunner,
  localRulesExtractor,
  type ExtractionDocument,
  type JsonObject,
} from '@docevals/core';
import { describe, expect, it } from 'vitest';
import { invoiceSchema, matchingCases, unrelatedTexts } from './local-rules-fixtures.js';
import { settings } from './runner-support.js';

const runner = createExtractionRunner({ extractors: [localRulesExtractor()] });
const local = settings({ model: 'local-rules' });

function doc(filename: string, mime_type: string, text: string | Uint8Array): ExtractionDocument {
  return { id: `file_${filename}`, filename, mime_type, bytes: typeof text === 'string' ? new TextEncoder().encode(text) : text };
}

describe('localRulesExtractor', () => {
  for (const c of matchingCases) {
    it(`reads ${c.name} with similarity >= 0.95`, async () => {
      const result = await runner.extractOne(doc(c.filename, c.mime_type, c.text), c.schema, local);
      const { similarity } = compareDocuments(c.annotation, result.prediction);
      if (similarity < 1) console.log(c.name, similarity, JSON.stringify(result.prediction));
      expect(similarity).toBeGreaterThanOrEqual(0.95);
    });
  }

  it('reads a value on the line below its label, and a top-level JSON list as the rows of the one list', async () => {
    const below = await runner.extractOne(
      doc('form.txt', 'text/plain', 'Invoice Number:\nINV-9\n\nTotal amount due:\n€ 10,50\n'),
      invoiceSchema,
      local,
    );
    expect(below.prediction).toMatchObject({ invoice_number: 'INV-9', total: 10.5 });
    const rows = await runner.extractOne(
      doc('rows.json', 'application/json', JSON.stringify([{ Description: 'Bolt', Qty: 2, 'Unit Price': '1.50', Amount: 3 }])),
      invoiceSchema,
      local,
    );
    expect(rows.prediction.line_items).toEqual([{ description: 'Bolt', quantity: 2, unit_price: 1.5, amount: 3 }]);
    expect(rows.prediction.invoice_number).toBeNull();
  });

  it('gives nulls for unrelated text', async () => {
    for (const t of unrelatedTexts) {
      const result = await runner.extractOne(doc(t.filename, t.mime_type, t.text), invoiceSchema, local);
      expect(result.prediction).toEqual({
        invoice_number: null,
        invoice_date: null,
        due_date: null,
        vendor: { name: null, address: null },
        customer: null,
        currency: null,
        paid: null,
        total: null,
        item_count: null,
        line_items: null,
      });
    }
  });

  it('reads a non-text document through its textLayer hook, and fails (not retried) when the hook cannot read it', async () => {
    const pages = new Map([['file_scan.pdf', 'Invoice Number: INV-9\nTotal amount due: 10.50']]);
    const withLayer = createExtractionRunner({
      extractors: [
        localRulesExtractor({
          textLayer: async (d) => {
            if (d.filename === 'broken.pdf') throw new Error('bad xref');
            return pages.get(d.id) ?? null;
          },
        }),
      ],
      retries: 2,
    });
    const pdf = doc('scan.pdf', 'application/pdf', new Uint8Array([0x25, 0x50, 0x44, 0x46]));
    const text = doc('scan.txt', 'text/plain', 'Invoice Number: INV-9\nTotal amount due: 10.50');
    const [fromPdf, fromText] = await withLayer.extractAll([pdf, text], invoiceSchema, local);
    expect(fromPdf!.prediction).toEqual(fromText!.prediction);
    expect(fromPdf!.prediction).toMatchObject({ invoice_number: 'INV-9', total: 10.5 });
    const [broken] = await withLayer.extractAll([doc('broken.pdf', 'application/pdf', new Uint8Array([1]))], invoiceSchema, local);
    expect(broken!.metadata?.error).toContain('cannot read the text of "broken.pdf": bad xref');
    expect(broken!.metadata?.error).not.toContain('attempts');
  });

  it('gives every field null for a document it cannot read as text', async () => {
    const pdf = doc('scan.pdf', 'application/pdf', new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d]));
    const result = await runner.extractOne(pdf, invoiceSchema, local);
    expect(result.prediction.invoice_number).toBeNull();
    expect(result.prediction.line_items).toBeNull();
  });

  it('never fails a readable document: a required, non-nullable field not found is null in the output it keeps', async () => {
    const schema: JsonObject = {
      type: 'object',
      properties: { reference: { type: 'string' }, note: { type: 'string' }, total: { type: 'number' } },
      required: ['reference'],
    };
    const result = await runner.extractAll([doc('a.txt', 'text/plain', 'Nothing here\nTotal: 12')], schema, local);
    expect(result[0]!.metadata?.error).toBeUndefined();
    expect(result[0]!.prediction).toEqual({ reference: null, total: 12 });
    const found = await runner.extractOne(doc('b.txt', 'text/plain', 'Reference: R-1'), schema, local);
    // An optional, non-nullable field that is not found is left out, so the output conforms.
    expect(found.prediction).toEqual({ reference: 'R-1' });
  });

  it('reads a recursive schema without unfolding it forever', async () => {
    const tree: JsonObject = {
      type: 'object',
      properties: {
        label: { type: ['string', 'null'] },
        left: { anyOf: [{ $ref: '#' }, { type: 'null' }] },
        right: { anyOf: [{ $ref: '#' }, { type: 'null' }] },
      },
    };
    const started = Date.now();
    const result = await runner.extractOne(doc('t.txt', 'text/plain', 'Label: root'), tree, local);
    expect(result.prediction).toEqual({ label: 'root', left: null, right: null });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('is deterministic and reports a known zero cost', async () => {
    const c = matchingCases[0]!;
    const a = await runner.extractOne(doc(c.filename, c.mime_type, c.text), c.schema, local);
    const b = await runner.extractOne(doc(c.filename, c.mime_type, c.text), c.schema, local);
    expect(a.prediction).toEqual(b.prediction);
    expect(a.metadata?.api_cost).toEqual({ value: 0, currency: 'USD' });
  });
});
