/**
 * The OpenAPI document against its committed snapshot (docs/openapi.snapshot.json): a change to the document is a
 * change to that file too, read as a diff in review (`pnpm openapi:diff` prints it by JSON path; `--update` rewrites
 * it). And the document served at /v1/openapi.json is the one `createOpenApiDocument()` builds (what the script reads).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOpenApiDocument } from '../src/index.js';
import { startRestServer, type RestServer } from './support/rest-server.js';

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer();
});
afterAll(() => api.close());

it('the served document is createOpenApiDocument(), and both are the committed snapshot', async () => {
  const served = await api.call('GET', '/v1/openapi.json');
  expect(served.status).toBe(200);
  const built = createOpenApiDocument();
  expect(served.body).toEqual(JSON.parse(JSON.stringify(built)));
  const snapshot: unknown = JSON.parse(readFileSync(new URL('../../../docs/openapi.snapshot.json', import.meta.url), 'utf8'));
  expect(JSON.parse(JSON.stringify(built))).toEqual(snapshot);
});
