import { createExtractionRunner, DEFAULT_INFERENCE_SETTINGS, type ExtractionDocument, type InferenceSettings, type JsonObject } from '@docevals/core';
import { openaiExtractor, pagePixels } from '@docevals/openai';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';

const schema: JsonObject = { type: 'object', properties: { total: { type: ['number', 'null'] } }, required: ['total'], additionalProperties: false };
const server = new FakeOpenAIServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => {
  server.reset();
  server.handle = () => ({ body: completion({ total: 1 }) });
});

const settings = (overrides: Partial<InferenceSettings>): InferenceSettings => ({ ...DEFAULT_INFERENCE_SETTINGS, model: 'gpt-4o-mini', ...overrides });
const textDoc = (text: string, filename = 'invoice.txt', mime_type = 'text/plain'): ExtractionDocument => ({ id: 'file_t', filename, mime_type, bytes: new TextEncoder().encode(text) });
const runner = (options: Record<string, unknown> = {}) =>
  createExtractionRunner({ extractors: [openaiExtractor({ apiKey: 'sk-test', baseURL: server.baseURL, ...options })], retries: 0 });
const parts = (): any[] => server.requests[0]!.body.messages[1].content;

async function pages(): Promise<Array<{ width: number; height: number; ink: number }>> {
  return Promise.all(
    parts()
      .filter((p) => p.type === 'image_url')
      .map(async (p) => {
        const image = await loadImage(Buffer.from(String(p.image_url.url).replace(/^data:image\/png;base64,/, ''), 'base64'));
        const canvas = createCanvas(image.width, image.height);
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0);
        const data = context.getImageData(0, 0, image.width, image.height).data;
        let ink = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i]! < 128) ink++;
        return { width: image.width, height: image.height, ink };
      }),
  );
}

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
