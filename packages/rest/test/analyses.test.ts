import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVOICE_SCHEMA, INVOICE_URL } from './support/fixtures.js';
import { KEY_B, startRestServer, type RestServer } from './support/rest-server.js';

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

describe('analyses over HTTP', () => {
  it('GET /compare answers field and document deltas', async () => {
    const r = await api.call('GET', `/v1/evals/${evaluation.id}/compare?base=${base.id}&head=${head.id}&threshold=0.001`);
    expect(r.status).toBe(200);
    expect(r.body.fields[0].field).toBe('total');
    expect(r.body.regressed.map((d: any) => d.filename)).toEqual(['one.txt']);
    expect(r.body.improved.map((d: any) => d.filename)).toEqual(['two, "quoted".txt']);
  });

  it('GET /compare refuses an unknown iteration (404) and a threshold out of range (422)', async () => {
    expect((await api.call('GET', `/v1/evals/${evaluation.id}/compare?base=${base.id}&head=eval_iter_nope`)).status).toBe(404);
    const bad = await api.call('GET', `/v1/evals/${evaluation.id}/compare?base=${base.id}&head=${head.id}&threshold=2`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues[0].path).toBe('threshold');
    expect((await api.call('GET', `/v1/evals/${evaluation.id}/compare?base=${base.id}&head=${head.id}`, { key: KEY_B })).status).toBe(404);
  });

  it('GET /leaderboard and /fields', async () => {
    const board = await api.call('GET', `/v1/evals/${evaluation.id}/leaderboard?sort=mean_similarity`);
    expect(board.status).toBe(200);
    expect(board.body.rows).toHaveLength(2);
    expect(board.body.differing_settings).toEqual(['model']);
    const fields = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${base.id}/fields`);
    expect(fields.status).toBe(200);
    expect(fields.body.fields.map((f: any) => f.field)).toEqual(['invoice_number', 'total']);
  });

  it('GET /matrix pages documents x iterations: the similarities the predictions carry; no prediction is pending; edits count', async () => {
    const first = await api.call('GET', `/v1/evals/${evaluation.id}/matrix?limit=1`);
    expect(first.status).toBe(200);
    expect(first.body.iterations.map((i: any) => i.id)).toEqual([base.id, head.id]);
    expect(first.body.iterations.map((i: any) => i.model)).toEqual(['base', 'head']);
    expect(first.body.data).toHaveLength(1);
    expect(first.body.list_metadata.after).toBe(first.body.data[0].document_id);
    const second = await api.call('GET', `/v1/evals/${evaluation.id}/matrix?limit=1&after=${first.body.list_metadata.after}`);
    expect(second.body.data.map((r: any) => r.filename)).toEqual(['two, "quoted".txt']);
    expect(second.body.list_metadata.after).toBeNull();
    // The same numbers as the predictions' metrics, iteration by iteration.
    for (const [column, iteration] of [base, head].entries()) {
      const page = await api.call('GET', `/v1/evals/${evaluation.id}/iterations/${iteration.id}/predictions?limit=10`);
      const rows = [first.body.data[0], second.body.data[0]];
      expect(rows.map((r: any) => r.similarities[column])).toEqual(page.body.data.map((p: any) => p.metrics.similarity));
      expect(rows.map((r: any) => r.statuses[column])).toEqual(['succeeded', 'succeeded']);
    }
    expect(first.body.data[0].similarities[1]).toBeLessThan(1);

    // A document added after the runs: pending in both, null similarities.
    const own = await api.call('POST', '/v1/evals', {
      body: {
        name: 'Matrix',
        json_schema: INVOICE_SCHEMA,
        documents: [{ mime_data: { filename: 'a.txt', url: INVOICE_URL }, annotation: { invoice_number: 'INV-1', total: 42 } }],
        iterations: [{ inference_settings: { model: 'imported' }, predictions: [{ prediction: { invoice_number: 'INV-1', total: 42 } }] }],
      },
    });
    const added = await api.call('POST', `/v1/evals/${own.body.id}/documents`, { body: { mime_data: { filename: 'b.txt', url: text('Invoice number: INV-2\nTotal: 1\n') }, annotation: { invoice_number: 'INV-2', total: 1 } } });
    expect(added.status).toBe(200);
    const matrix = await api.call('GET', `/v1/evals/${own.body.id}/matrix?limit=1000`);
    expect(matrix.body.data.map((r: any) => [r.filename, r.similarities, r.statuses])).toEqual([
      ['a.txt', [1], ['succeeded']],
      ['b.txt', [null], ['pending']],
    ]);
    // An annotation edited since the run: the matrix shows the current similarity.
    await api.call('PUT', `/v1/evals/${own.body.id}/documents/${matrix.body.data[0].document_id}`, { body: { annotation: { invoice_number: 'INV-1', total: 41 } } });
    const edited = await api.call('GET', `/v1/evals/${own.body.id}/matrix`);
    expect(edited.body.data[0].similarities[0]).toBeLessThan(1);
  });

  it('GET /matrix refuses an unknown cursor (422 at after), a limit over 1,000, and another organization (404)', async () => {
    const cursor = await api.call('GET', `/v1/evals/${evaluation.id}/matrix?after=file_nope`);
    expect(cursor.status).toBe(422);
    expect(cursor.body.error.issues[0].path).toBe('after');
    expect((await api.call('GET', `/v1/evals/${evaluation.id}/matrix?limit=1001`)).status).toBe(422);
    expect((await api.call('GET', `/v1/evals/${evaluation.id}/matrix`, { key: KEY_B })).status).toBe(404);
  });

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

  it('POST /documents/import takes a CSV body, a JSONL body, or JSON with the text', async () => {
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

    const json = await api.call('POST', `/v1/evals/${evaluation.id}/documents/import`, {
      body: { format: 'csv', content: 'document_id,total\nfile_nope,1\n' },
    });
    expect(json.status).toBe(200);
    expect(json.body.rows[0]).toMatchObject({ status: 'refused', document_id: 'file_nope' });
    const wrongType = await api.call('POST', `/v1/evals/${evaluation.id}/documents/import`, { raw: 'a,b', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
  });
});
