import type { ExtractionDocument } from '@docevals/core';
import { pagePixels } from '@docevals/openai';
import { describe, expect, it } from 'vitest';
import { completion } from '../../../test-support/fake-openai-server.js';
import { pageServer, receivedPages, schema, settings } from './support/page-server.js';

const { server, runner } = pageServer();
const textDoc = (text: string, filename = 'invoice.txt', mime_type = 'text/plain'): ExtractionDocument => ({ id: 'file_t', filename, mime_type, bytes: new TextEncoder().encode(text) });
const parts = (): any[] => server.requests[0]!.body.messages[1].content;
const pages = () => receivedPages(server);

describe('text documents rendered on browser_canvas pages in modality image', () => {
  it('pagePixels: ISO sizes at the dpi', () => {
    expect(pagePixels('A4', 96)).toEqual({ width: 794, height: 1123 });
    expect(pagePixels('A3', 72)).toEqual({ width: 842, height: 1191 });
    expect(pagePixels('A5', 144)).toEqual({ width: 839, height: 1191 });
  });

  it('A4 at 96 dpi: one 794×1123 px page with the text drawn, and no text part carrying the document', async () => {
    await runner().extractOne(textDoc('Invoice number: INV-1\nTotal: 42'), schema, settings({ modality: 'image', browser_canvas: 'A4', image_resolution_dpi: 96 }));
    const rendered = await pages();
    expect(rendered.map(({ width, height }) => [width, height])).toEqual([[794, 1123]]);
    expect(rendered[0]!.ink).toBeGreaterThan(100);
    expect(parts().map((p) => p.type)).toEqual(['text', 'text', 'image_url']);
    expect(JSON.stringify(parts())).not.toContain('INV-1');
  });

  it('the canvas and dpi set the page size; a long text fills several pages', async () => {
    const long = Array.from({ length: 80 }, (_, i) => `Line ${i + 1}: item`).join('\n');
    await runner().extractOne(textDoc(long), schema, settings({ modality: 'image', browser_canvas: 'A5', image_resolution_dpi: 36 }));
    const rendered = await pages();
    expect(rendered.map(({ width, height }) => [width, height])).toEqual([[210, 298], [210, 298], [210, 298]]);
    expect(parts().filter((p) => p.type === 'text').map((p) => p.text)).toEqual(['Document: invoice.txt', 'Page 1 of 3', 'Page 2 of 3', 'Page 3 of 3']);
  });

  it('image+text: the pages, then the text; text and native: the text only', async () => {
    await runner().extractOne(textDoc('Total: 42'), schema, settings({ modality: 'image+text', browser_canvas: 'A3', image_resolution_dpi: 36 }));
    expect(parts().map((p) => p.type)).toEqual(['text', 'text', 'image_url', 'text']);
    expect(parts()[3].text).toBe('Total: 42');
    expect((await pages()).map(({ width, height }) => [width, height])).toEqual([[421, 595]]);
    for (const modality of ['text', 'native'] as const) {
      server.reset();
      server.handle = () => ({ body: completion({ total: 1 }) });
      await runner().extractOne(textDoc('Total: 42'), schema, settings({ modality }));
      expect(parts()).toEqual([{ type: 'text', text: 'Document: invoice.txt' }, { type: 'text', text: 'Total: 42' }]);
    }
  });

  it('HTML is drawn as its visible text, and a text over maxPages fails without calling the provider', async () => {
    await runner().extractOne(textDoc('<html><body><p>Total: <b>42</b></p></body></html>', 'a.html', 'text/html'), schema, settings({ modality: 'image' }));
    const html = (await pages())[0]!.ink;
    server.reset();
    server.handle = () => ({ body: completion({ total: 1 }) });
    await runner().extractOne(textDoc('Total: 42'), schema, settings({ modality: 'image' }));
    const plain = (await pages())[0]!.ink;
    expect(plain).toBeGreaterThan(20);
    expect(Math.abs(html - plain) / plain).toBeLessThan(0.05); // the same glyphs: the tags were not drawn
    server.reset();
    const long = Array.from({ length: 200 }, (_, i) => `Line ${i}`).join('\n');
    const [result] = await runner({ maxPages: 2 }).extractAll([textDoc(long)], schema, settings({ modality: 'image', browser_canvas: 'A5', image_resolution_dpi: 36 }));
    expect(result!.metadata?.error).toContain('the text fills 6 A5 pages; at most 2 are rendered as images');
    expect(server.requests).toHaveLength(0);
  });
});
