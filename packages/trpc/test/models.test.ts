import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals, localRulesExtractor, type Extractor } from '@docevals/core';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveRouter, type ServedRouter } from './serve-router.js';

const vision: Extractor = { name: 'vision', models: [/^vision-/], modalities: ['image', 'text'], extract: async () => ({ data: {} }) };
let served: ServedRouter;
beforeAll(async () => {
  served = await serveRouter(createDocevals({ storage: memoryStorage(), extractors: [localRulesExtractor(), vision] }));
});
afterAll(() => served.close());

describe('models.list', () => {
  it('answers the served models over a real tRPC client', async () => {
    expect(await served.client('key_org_a').models.list.query()).toEqual({
      data: [
        { id: 'local-rules', extractor: 'local-rules', pattern: false, modalities: ['text'], provider: null },
        { id: '/^vision-/', extractor: 'vision', pattern: true, modalities: ['text', 'image'], provider: null },
      ],
    });
  });

  it('needs a key', async () => {
    const error = await served.client().models.list.query().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as { data?: { httpStatus?: number } }).data?.httpStatus).toBe(401);
  });
});
