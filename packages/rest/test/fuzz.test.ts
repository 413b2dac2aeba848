/**
 * Property test (issue 13): random JSON bodies, JSON Schemas, annotations, raw bytes and query strings thrown at
 * every REST operation of a real server on 127.0.0.1. No answer is a 500 (an extractor's failure is the documented
 * 502), nothing reaches `onError` but documented 5xx codes, and the server keeps answering. Bounded: at most 200
 * runs and 2 s per operation.
 */
import fc from 'fast-check';
import { isDocevalsError } from '@docevals/core';
import { afterAll, describe, expect, it } from 'vitest';
import { bodyArbitrary, queryArbitrary, rawBodyArbitrary } from '../../../test-support/fuzz-arbitraries.js';
import { KEY_B } from './support/rest-server.js';
import { requestsFor, seed, seededServer } from './support/seed.js';

const RUNS = 200;
const TIME_PER_OPERATION_MS = 2_000;

const served = seededServer();

/** A documented answer: anything below 500, or 502 `extractor_error` (a submit whose extraction failed). */
function expectDocumented(r: { status: number; body: any }, what: string): void {
  if (r.status === 502) expect(r.body?.error?.code, what).toBe('extractor_error');
  else expect(r.status, `${what}: ${JSON.stringify(r.body).slice(0, 300)}`).toBeLessThan(500);
}

const runOptions = { numRuns: RUNS, interruptAfterTimeLimit: TIME_PER_OPERATION_MS, markInterruptAsFailure: false };

describe('fuzz: every REST operation answers random input with a documented status', () => {
  // Deleting operations run last: the others find the seeded objects.
  const operations = () =>
    requestsFor(served.ids).sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));

  it('random JSON bodies and query strings', async () => {
    for (const { method, path } of operations()) {
      const hasBody = method !== 'GET' && method !== 'DELETE';
      await fc.assert(
        fc.asyncProperty(bodyArbitrary, queryArbitrary, fc.boolean(), async (body, query, asB) => {
          const r = await served.api.call(method, hasBody ? path : `${path}${path.includes('?') ? '&' : '?'}${query}`, {
            ...(hasBody ? { body } : {}),
            ...(asB ? { key: KEY_B } : {}),
          });
          expectDocumented(r, `${method} ${path}`);
        }),
        runOptions,
      );
    }
  }, 180_000);

  it('random raw bytes as JSON bodies', async () => {
    for (const { method, path } of operations().filter((o) => o.method !== 'GET' && o.method !== 'DELETE')) {
      await fc.assert(
        fc.asyncProperty(rawBodyArbitrary, async (bytes) => {
          const r = await served.api.call(method, path, { raw: Buffer.from(bytes), headers: { 'content-type': 'application/json' } });
          expectDocumented(r, `${method} ${path}`);
        }),
        { ...runOptions, numRuns: 100 },
      );
    }
  }, 120_000);

  it('random CSV and JSON Lines annotation files (list indexes, deep paths, quotes, __proto__), then every export', async () => {
    // Objects of its own: the tests above end with the deleting operations, which remove the shared seed.
    const { evaluationId, documentId, iterationId } = await seed(served.api);
    const segment = fc.oneof(
      fc.constantFrom('invoice_number', 'total', '__proto__', 'items', '0', '99999', '1000', 'a~1b', ''),
      fc.string({ maxLength: 6 }),
    );
    const column = fc.array(segment, { minLength: 1, maxLength: 70 }).map((parts) => parts.join('.'));
    const cell = fc.oneof(fc.constantFrom('', 'null', '1', '-1', '=1+1', '"', documentId, 'x,y', 'a\nb'), fc.string({ maxLength: 8 }));
    const quote = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
    const csv = fc
      .tuple(fc.array(column, { maxLength: 6 }), fc.array(fc.array(cell, { maxLength: 8 }), { maxLength: 6 }), fc.boolean())
      .map(([columns, rows, byFilename]) =>
        [[byFilename ? 'filename' : 'document_id', ...columns], ...rows.map((r) => [r[0] ?? documentId, ...r.slice(1)])]
          .map((r) => r.map(quote).join(','))
          .join('\n'),
      );
    const jsonl = fc
      .array(fc.oneof(fc.record({ document_id: fc.constantFrom(documentId, 'file_nope', ''), annotation: bodyArbitrary }), bodyArbitrary), { maxLength: 5 })
      .map((rows) => rows.map((r) => JSON.stringify(r)).join('\n'));
    const file = fc.oneof(
      csv.map((text) => ({ text, type: 'text/csv' })),
      jsonl.map((text) => ({ text, type: 'application/x-ndjson' })),
      fc.string({ maxLength: 200 }).map((text) => ({ text, type: 'text/csv' })),
    );
    await fc.assert(
      fc.asyncProperty(file, fc.boolean(), async ({ text, type }, validate) => {
        const r = await served.api.call('POST', `/v1/evals/${evaluationId}/documents/import${validate ? '' : '?validate=false'}`, {
          raw: text,
          headers: { 'content-type': type },
        });
        expectDocumented(r, `import ${type}`);
        // Whatever was imported, every read of the evaluation still answers.
        const exported = await served.api.call('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}/export?format=csv`);
        expect(exported.status).toBe(200);
        expect((await served.api.call('GET', `/v1/evals/${evaluationId}`)).status).toBe(200);
      }),
      { ...runOptions, numRuns: 100, interruptAfterTimeLimit: 20_000 },
    );
    await fc.assert(
      fc.asyncProperty(queryArbitrary, fc.constantFrom('csv', 'jsonl', 'xlsx', ''), fc.constantFrom('true', 'false', 'yes', ''), async (query, format, raw) => {
        const r = await served.api.call('GET', `/v1/evals/${evaluationId}/iterations/${iterationId}/export?format=${format}&raw=${raw}&${query}`);
        expectDocumented(r, 'export');
      }),
      runOptions,
    );
  }, 180_000);

  afterAll(async () => {
    // Only documented failures reached the host's log: extractor and storage errors, no bug.
    for (const error of served.api.unexpected) {
      expect(isDocevalsError(error) && ['extractor_error', 'storage_error'].includes(error.code), String(error)).toBe(true);
    }
    expect((await served.api.call('GET', '/health')).status).toBe(200);
  });
});
