import { Buffer } from 'node:buffer';
import { afterEach, describe, expect, it } from 'vitest';
import { documentSummarySchema } from '@docevals/core';
import { z } from 'zod';
import { contentUrlRewrite } from '../src/content-urls.js';
import { KEY_A, startRestServer, type RestServer } from './support/rest-server.js';

const TEXT = 'Invoice number: INV-7\nTotal: 42\n';
const EVALUATION = {
  name: 'Mounted',
  json_schema: { type: 'object', properties: { total: { type: 'number' } } },
  documents: [{ mime_data: { filename: 'inv-7.txt', url: `data:text/plain;base64,${Buffer.from(TEXT).toString('base64')}` }, annotation: { total: 42 } }],
};

let server: RestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** Lists the documents both ways (the documents list, the evaluations list) and fetches each URL as answered. */
async function contentUrls(basePath: string | undefined) {
  server = await startRestServer(basePath === undefined ? {} : { basePath });
  const created = await server.call('POST', '/v1/evals', { body: EVALUATION });
  expect(created.status).toBe(200);
  const documents = await server.call('GET', `/v1/evals/${created.body.id}/documents`);
  const evaluations = await server.call('GET', '/v1/evals');
  const urls = [documents.body.data[0].mime_data.url, evaluations.body.data[0].documents[0].mime_data.url] as string[];
  const origin = new URL(server.url).origin;
  const fetched = await Promise.all(urls.map(async (url) => {
    const response = await fetch(`${origin}${url}`, { headers: { 'api-key': KEY_A } });
    return { status: response.status, text: await response.text() };
  }));
  return { id: created.body.id as string, documentId: documents.body.data[0].id as string, urls, fetched };
}

describe("a document summary's mime_data.url", () => {
  it('is under the base path when the API is mounted under one, and fetches the file as it is', async () => {
    const { id, documentId, urls, fetched } = await contentUrls('/evals');
    expect(urls).toEqual([0, 1].map(() => `/evals/v1/evals/${id}/documents/${documentId}/content`));
    expect(fetched).toEqual([0, 1].map(() => ({ status: 200, text: TEXT })));
  });

  it('is the plain API path at the root', async () => {
    const { id, documentId, urls, fetched } = await contentUrls(undefined);
    expect(urls).toEqual([0, 1].map(() => `/v1/evals/${id}/documents/${documentId}/content`));
    expect(fetched.map((f) => f.text)).toEqual([TEXT, TEXT]);
  });

  it('leaves data URLs and the objects it was given alone', () => {
    const rewrite = contentUrlRewrite(z.object({ data: z.array(z.object({ documents: z.array(documentSummarySchema) })) }), documentSummarySchema)!;
    const given = {
      data: [{ documents: [{ mime_data: { filename: 'a', url: '/v1/evals/e/documents/d/content' } }, { mime_data: { filename: 'b', url: 'data:text/plain;base64,eA==' } }] }],
    };
    const copy = structuredClone(given);
    const answered = rewrite(given, '/api');
    expect(answered.data[0]!.documents.map((d) => d.mime_data.url)).toEqual(['/api/v1/evals/e/documents/d/content', 'data:text/plain;base64,eA==']);
    expect(given).toEqual(copy);
    expect(answered.data[0]!.documents[1]).toBe(given.data[0]!.documents[1]);
    expect(rewrite(given, '')).toBe(given);
    expect(contentUrlRewrite(z.object({ annotation: z.record(z.string(), z.unknown()) }), documentSummarySchema)).toBeNull();
  });

  it("leaves a ground truth that happens to hold a mime_data as the user wrote it (only the schema's summaries move)", async () => {
    server = await startRestServer({ basePath: '/evals' });
    const annotation = { total: 42, mime_data: { filename: 'x.txt', url: '/v1/x' } };
    const created = await server.call('POST', '/v1/evals', { body: { ...EVALUATION, documents: [{ ...EVALUATION.documents[0]!, annotation }] } });
    expect(created.status).toBe(200);
    const expanded = await server.call('GET', `/v1/evals/${created.body.id}/documents?expand=documents`);
    expect(expanded.status).toBe(200);
    expect(expanded.body.data[0].annotation).toEqual(annotation);
  });
});
