import { createExtractionRunner, DEFAULT_INFERENCE_SETTINGS, type InferenceSettings, type JsonObject } from '@docevals/core';
import { openaiExtractor } from '@docevals/openai';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { completion, FakeOpenAIServer } from '../../../../test-support/fake-openai-server.js';

/** The extraction schema of the page tests: one nullable number. */
export const schema: JsonObject = { type: 'object', properties: { total: { type: ['number', 'null'] } }, required: ['total'], additionalProperties: false };

export const settings = (overrides: Partial<InferenceSettings>): InferenceSettings => ({ ...DEFAULT_INFERENCE_SETTINGS, model: 'gpt-4o-mini', ...overrides });

/**
 * A fake OpenAI-compatible provider on loopback for one test file (started before its tests, reset before each, and
 * answering `{ total: 1 }`), and an extraction runner that calls it without retries.
 */
export function pageServer() {
  const server = new FakeOpenAIServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => {
    server.reset();
    server.handle = () => ({ body: completion({ total: 1 }) });
  });
  const runner = (options: Record<string, unknown> = {}) =>
    createExtractionRunner({ extractors: [openaiExtractor({ apiKey: 'sk-test', baseURL: server.baseURL, ...options })], retries: 0 });
  return { server, runner };
}

/** The PNG pages the fake provider received in its first request, decoded with Skia: pixel size and how many pixels are dark (ink). */
export async function receivedPages(server: FakeOpenAIServer): Promise<Array<{ width: number; height: number; ink: number }>> {
  const parts: any[] = server.requests[0]!.body.messages[1].content;
  const images = parts.filter((p) => p.type === 'image_url');
  return Promise.all(
    images.map(async (part) => {
      const url: string = part.image_url.url;
      expect(url.startsWith('data:image/png;base64,')).toBe(true);
      const image = await loadImage(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64'));
      const canvas = createCanvas(image.width, image.height);
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const data = context.getImageData(0, 0, image.width, image.height).data;
      let ink = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! < 128 && data[i + 3]! > 0) ink++;
      return { width: image.width, height: image.height, ink };
    }),
  );
}
