import type { ExtractionDocument } from '@docevals/core';
import { describe, expect, it } from 'vitest';
import { completion } from '../../../test-support/fake-openai-server.js';
import { pageServer, receivedPages as decodePages, schema, settings } from './support/page-server.js';
import { handWrittenPdf, tinyPdf } from './support/tiny-pdf.js';

const { server, runner } = pageServer();
const pdf = (bytes: Uint8Array): ExtractionDocument => ({ id: 'file_pdf', filename: 'scan.pdf', mime_type: 'application/pdf', bytes });
const receivedPages = () => decodePages(server);

describe('PDF pages rendered as PNG at image_resolution_dpi', () => {
  it('modality image: a 72×72 pt page at 144 dpi arrives as a 144×144 px PNG, with its text drawn; no file part', async () => {
    await runner().extractOne(pdf(handWrittenPdf([{ width: 72, height: 72, text: 'TOTAL 42', size: 14, x: 4, y: 30 }])), schema, settings({ modality: 'image', image_resolution_dpi: 144 }));
    const pages = await receivedPages();
    expect(pages.map(({ width, height }) => [width, height])).toEqual([[144, 144]]);
    expect(pages[0]!.ink).toBeGreaterThan(50); // the text is on the page (PDF.js drew glyphs, not a blank sheet)
    const parts: any[] = server.requests[0]!.body.messages[1].content;
    expect(parts.some((p) => p.type === 'file')).toBe(false);
    expect(parts.map((p) => p.type)).toEqual(['text', 'text', 'image_url']);
    expect(parts[1].text).toBe('Page 1 of 1');
  });

  it('every page in order, each at its own size: the pixel size follows the dpi', async () => {
    const bytes = handWrittenPdf([
      { width: 72, height: 72, text: 'one' },
      { width: 144, height: 36, text: 'two' },
    ]);
    await runner().extractOne(pdf(bytes), schema, settings({ modality: 'image', image_resolution_dpi: 144 }));
    expect((await receivedPages()).map(({ width, height }) => [width, height])).toEqual([[144, 144], [288, 72]]);
    server.reset();
    server.handle = () => ({ body: completion({ total: 1 }) });
    await runner().extractOne(pdf(bytes), schema, settings({ modality: 'image', image_resolution_dpi: 36 }));
    expect((await receivedPages()).map(({ width, height }) => [width, height])).toEqual([[36, 36], [72, 18]]);
  });

  it('the default 96 dpi renders a US Letter page (612×792 pt) at 816×1056 px', async () => {
    await runner().extractOne(pdf(tinyPdf('Invoice Number: INV-77')), schema, settings({ modality: 'image' }));
    const [page] = await receivedPages();
    expect([page!.width, page!.height]).toEqual([816, 1056]);
    expect(page!.ink).toBeGreaterThan(100);
  });

  it('image+text: the pages, then the text layer', async () => {
    await runner().extractOne(pdf(tinyPdf('Invoice Number: INV-77')), schema, settings({ modality: 'image+text', image_resolution_dpi: 72 }));
    const parts: any[] = server.requests[0]!.body.messages[1].content;
    expect(parts.map((p) => p.type)).toEqual(['text', 'text', 'image_url', 'text']);
    expect(parts[3].text).toContain('Invoice Number: INV-77');
    expect((await receivedPages()).map(({ width, height }) => [width, height])).toEqual([[612, 792]]);
  });

  it('n_consensus 3: every run sends the same rendered pages', async () => {
    await runner().extractOne(pdf(tinyPdf('Total: 1')), schema, settings({ modality: 'image', n_consensus: 3, image_resolution_dpi: 72 }));
    const urls = server.requests.map((r) => r.body.messages[1].content.find((p: any) => p.type === 'image_url').image_url.url);
    expect(urls).toHaveLength(3);
    expect(new Set(urls).size).toBe(1);
  });

  it('native still sends the PDF file itself, unrendered', async () => {
    const bytes = tinyPdf('x');
    await runner().extractOne(pdf(bytes), schema, settings({ modality: 'native', image_resolution_dpi: 144 }));
    const parts: any[] = server.requests[0]!.body.messages[1].content;
    expect(parts[1]).toEqual({ type: 'file', file: { filename: 'scan.pdf', file_data: `data:application/pdf;base64,${Buffer.from(bytes).toString('base64')}` } });
  });

  it('a PDF over maxPages, or one that does not parse, fails without calling the provider', async () => {
    const three = handWrittenPdf([1, 2, 3].map((n) => ({ width: 72, height: 72, text: String(n) })));
    const [tooLong] = await runner({ maxPages: 2 }).extractAll([pdf(three)], schema, settings({ modality: 'image' }));
    expect(tooLong!.metadata?.error).toContain('the PDF has 3 pages; at most 2 are rendered as images');
    const [broken] = await runner().extractAll([pdf(new TextEncoder().encode('%PDF-1.4 not really'))], schema, settings({ modality: 'image' }));
    expect(broken!.metadata?.error).toContain('cannot render the PDF "scan.pdf" as images');
    expect(server.requests).toHaveLength(0);
  });
});
