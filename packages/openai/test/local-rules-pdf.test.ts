import { createExtractionRunner, DEFAULT_INFERENCE_SETTINGS, localRulesExtractor, type ExtractionDocument, type JsonObject } from '@docevals/core';
import { pdfTextLayer } from '@docevals/openai';
import { describe, expect, it } from 'vitest';
import { handWrittenPdf } from './support/tiny-pdf.js';

const schema: JsonObject = {
  type: 'object',
  properties: { invoice_number: { type: 'string' }, total: { type: 'number' }, vendor: { type: 'string' } },
  required: ['invoice_number', 'total', 'vendor'],
};
const settings = { ...DEFAULT_INFERENCE_SETTINGS, model: 'local-rules' };
const runner = createExtractionRunner({ extractors: [localRulesExtractor({ textLayer: pdfTextLayer })] });
const lines = ['Invoice Number: INV-77', 'Total: 42.50'];
const document = (filename: string, mime_type: string, bytes: Uint8Array): ExtractionDocument => ({ id: `file_${filename}`, filename, mime_type, bytes });

describe('local-rules with pdfTextLayer (unpdf)', () => {
  it('extracts from a PDF text layer the fields a text file with the same content gives (missing ones null, no failure)', async () => {
    const pdf = handWrittenPdf(lines.map((text) => ({ width: 612, height: 792, text, x: 72, y: 720 })));
    const [fromPdf, fromText] = await runner.extractAll(
      [document('invoice.pdf', 'application/pdf', pdf), document('invoice.txt', 'text/plain', new TextEncoder().encode(lines.join('\n')))],
      schema,
      settings,
    );
    expect(fromText!.prediction).toEqual({ invoice_number: 'INV-77', total: 42.5, vendor: null });
    expect(fromPdf!.prediction).toEqual(fromText!.prediction);
    expect(fromPdf!.metadata?.error).toBeUndefined();
  });

  it('gives null for documents that are not PDFs, and for a PDF it cannot parse the call fails', async () => {
    expect(await pdfTextLayer(document('a.png', 'image/png', new Uint8Array([137, 80, 78, 71])))).toBeNull();
    const [broken] = await runner.extractAll([document('broken.pdf', 'application/pdf', new TextEncoder().encode('%PDF-1.4 nothing'))], schema, settings);
    expect(broken!.metadata?.error).toContain('local-rules cannot read the text of "broken.pdf"');
  });
});
