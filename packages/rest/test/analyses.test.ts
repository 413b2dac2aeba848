import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVOICE_SCHEMA, INVOICE_URL } from './support/fixtures.js';
import { startRestServer, type RestServer } from './support/rest-server.js';

let api: RestServer;
let evaluation: any;
let base: any;
let head: any;

const text = (body: string) => `data:text/plain;base64,${Buffer.from(body).toString('base64')}`;

beforeAll(async () => {
  api = await startRestServer();
  const created = await api.call('POST', '/v1/evals', {
    body: {
      name: 'Invoices',
      json_schema: INVOICE_SCHEMA,
      default_inference_settings: { model: 'local-rules' },
      documents: [
        { mime_data: { filename: 'one.txt', url: INVOICE_URL }, annotation: { invoice_number: 'INV-1', total: 42 } },
        { mime_data: { filename: 'two, "quoted".txt', url: text('Invoice number: INV-2\nTotal: 7\n') }, annotation: { invoice_number: 'INV-2', total: 7 } },
      ],
      iterations: [
        { inference_settings: { model: 'base' }, predictions: [{ prediction: { invoice_number: 'INV-1', total: 42 } }, { prediction: { invoice_number: 'INV-9', total: 7 } }] },
        { inference_settings: { model: 'head' }, predictions: [{ prediction: { invoice_number: 'INV-1', total: 40 } }, { prediction: { invoice_number: 'INV-2', total: 7 } }] },
      ],
    },
  });
  expect(created.status).toBe(200);
  evaluation = created.body;
  [base, head] = evaluation.iterations;
});
afterAll(() => api.close());

// compare, leaderboard, fields, matrix and the JSON import are shared cases (test-support/transport-conformance/);
// here, what REST alone has: files out, text bodies in.
describe('analyses over HTTP', () => {
  it('GET /export streams a CSV file with a name that parses back', async () => {
    const response = await fetch(`${api.url}/v1/evals/${evaluation.id}/iterations/${base.id}/export?format=csv`, { headers: { 'api-key': 'key_org_a_0123456789' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${base.id}.csv"`);
    const rows = parse(await response.text(), { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(4);
    expect(rows[2]).toMatchObject({ filename: 'two, "quoted".txt', field: 'invoice_number', annotation: 'INV-2', prediction: 'INV-9' });
    const jsonl = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${base.id}/export?format=jsonl`);
    expect(jsonl.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const lines = (jsonl.body as string).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[1]).toMatchObject({ field: 'total', annotation: 42, prediction: 42, similarity: 1 });
    expect((await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${base.id}/export?format=xlsx`)).status).toBe(422);
  });

  it('POST /documents/import takes a CSV or a JSONL body (415 for another type), dry_run from the query', async () => {
    // A preview first (?dry_run=true): the rows as the import answers them, nothing written.
    const preview = await api.call('POST', `/v1/evals/${evaluation.id}/documents/import?dry_run=true`, {
      raw: 'filename,invoice_number,total\none.txt,INV-1,40\nmissing.txt,X,1\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(preview.body).toMatchObject({ dry_run: true, updated: 1, refused: 1 });
    const unchanged = await api.call('GET', `/v1/evals/${evaluation.id}/documents/${evaluation.documents[0].id}`);
    expect(unchanged.body.annotation).not.toEqual({ invoice_number: 'INV-1', total: 40 });
    const csv = await api.call('POST', `/v1/evals/${evaluation.id}/documents/import`, {
      raw: 'filename,invoice_number,total\none.txt,INV-1,40\nmissing.txt,X,1\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.body).toMatchObject({ dry_run: false, updated: 1, refused: 1 });
    const doc = await api.call('GET', `/v1/evals/${evaluation.id}/documents/${evaluation.documents[0].id}`);
    expect(doc.body.annotation).toEqual({ invoice_number: 'INV-1', total: 40 });
    const summary = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${head.id}?view=summary`);
    expect(summary.body.metric_results.mean_similarity).toBe(1);

    const jsonl = await api.call('POST', `/v1/evals/${evaluation.id}/documents/import`, {
      raw: `{"document_id":"${evaluation.documents[0].id}","annotation":{"invoice_number":"INV-1","total":42}}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(jsonl.body).toMatchObject({ updated: 1, refused: 0 });

    const wrongType = await api.call('POST', `/v1/evals/${evaluation.id}/documents/import`, { raw: 'a,b', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
  });
});
