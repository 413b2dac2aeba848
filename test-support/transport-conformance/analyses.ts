import { beforeAll, describe, expect, it } from 'vitest';
import { data, dataUrl, failure } from './expect-outcome.js';
import type { Transport } from './transport.js';

const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };
const invoice = (n: number, total: number) => dataUrl(`Invoice number: INV-${n}\nTotal: ${total}\n`);

/** The evaluation the analyses read: two documents, iterations `base` and `head` (head the better). */
interface Fixture {
  evaluation: any;
  base: any;
  head: any;
}

export function analysesCases(transport: () => Transport): void {
  describe('analyses', () => {
    const fixture = {} as Fixture;
    beforeAll(async () => {
      fixture.evaluation = await data(
        transport().call('evals.create', {
          name: 'Invoices',
          json_schema: SCHEMA,
          documents: [
            { mime_data: { filename: 'one.txt', url: invoice(1, 42) }, annotation: { invoice_number: 'INV-1', total: 42 } },
            { mime_data: { filename: 'two, "quoted".txt', url: invoice(2, 7) }, annotation: { invoice_number: 'INV-2', total: 7 } },
          ],
          iterations: [
            { inference_settings: { model: 'base' }, predictions: [{ prediction: { invoice_number: 'INV-1', total: 42 } }, { prediction: { invoice_number: 'INV-9', total: 7 } }] },
            { inference_settings: { model: 'head' }, predictions: [{ prediction: { invoice_number: 'INV-1', total: 40 } }, { prediction: { invoice_number: 'INV-2', total: 7 } }] },
          ],
        }),
      );
      [fixture.base, fixture.head] = fixture.evaluation.iterations;
    });
    comparisonCases(transport, fixture);
    matrixCases(transport, fixture);
  });
}

function comparisonCases(transport: () => Transport, fixture: Fixture): void {
  const call = (operation: string, input: Record<string, unknown>) => transport().call(operation, { evaluation_id: fixture.evaluation.id, ...input });
  it('evals.compare answers field and document deltas', async () => {
    const comparison = await data(call('evals.compare', { base: fixture.base.id, head: fixture.head.id, threshold: 0.001 }));
    expect(comparison.fields[0].field).toBe('total');
    expect(comparison.regressed.map((d: any) => d.filename)).toEqual(['one.txt']);
    expect(comparison.improved.map((d: any) => d.filename)).toEqual(['two, "quoted".txt']);
  });

  it('evals.compare refuses an unknown iteration, a threshold out of range, and another organization', async () => {
    expect(await failure(call('evals.compare', { base: fixture.base.id, head: 'eval_iter_nope' }))).toMatchObject({ status: 404, code: 'not_found' });
    const bad = await failure(call('evals.compare', { base: fixture.base.id, head: fixture.head.id, threshold: 2 }));
    expect(bad.code).toBe('validation_error');
    expect(bad.issues?.[0]?.path).toBe('threshold');
    const other = transport().call('evals.compare', { evaluation_id: fixture.evaluation.id, base: fixture.base.id, head: fixture.head.id }, 'org_b');
    expect(await failure(other)).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('evals.leaderboard and evals.iterations.fields', async () => {
    const board = await data(call('evals.leaderboard', { sort: 'mean_similarity' }));
    expect(board.rows.map((r: any) => r.iteration_id)).toEqual([fixture.head.id, fixture.base.id]); // best mean first
    expect(board.differing_settings).toEqual(['model']);
    const fields = await data(call('evals.iterations.fields', { iteration_id: fixture.base.id }));
    expect(fields.fields.map((f: any) => f.field)).toEqual(['invoice_number', 'total']);
  });

}

function matrixCases(transport: () => Transport, fixture: Fixture): void {
  const call = (operation: string, input: Record<string, unknown>) => transport().call(operation, { evaluation_id: fixture.evaluation.id, ...input });
  it('evals.matrix pages documents x iterations: the similarities the predictions carry', async () => {
    const first = await data(call('evals.matrix', { limit: 1 }));
    expect(first.iterations.map((i: any) => [i.id, i.model])).toEqual([
      [fixture.base.id, 'base'],
      [fixture.head.id, 'head'],
    ]);
    expect(first.data).toHaveLength(1);
    expect(first.list_metadata.after).toBe(first.data[0].document_id);
    const second = await data(call('evals.matrix', { limit: 1, after: first.list_metadata.after }));
    expect(second.data.map((r: any) => r.filename)).toEqual(['two, "quoted".txt']);
    expect(second.list_metadata.after).toBeNull();
    for (const [column, iteration] of [fixture.base, fixture.head].entries()) {
      const page = await data(call('evals.iterations.predictions', { iteration_id: iteration.id, limit: 10 }));
      const rows = [first.data[0], second.data[0]];
      expect(rows.map((r: any) => r.similarities[column])).toEqual(page.data.map((p: any) => p.metrics.similarity));
      expect(rows.map((r: any) => r.statuses[column])).toEqual(['succeeded', 'succeeded']);
    }
    expect(first.data[0].similarities[1]).toBeLessThan(1);
  });

  it('evals.matrix shows a document added after the runs as pending, and an edited annotation at once', async () => {
    const own = await data(
      transport().call('evals.create', {
        name: 'Matrix',
        json_schema: SCHEMA,
        documents: [{ mime_data: { filename: 'a.txt', url: invoice(1, 42) }, annotation: { invoice_number: 'INV-1', total: 42 } }],
        iterations: [{ inference_settings: { model: 'imported' }, predictions: [{ prediction: { invoice_number: 'INV-1', total: 42 } }] }],
      }),
    );
    const document = { mime_data: { filename: 'b.txt', url: invoice(2, 1) }, annotation: { invoice_number: 'INV-2', total: 1 } };
    await data(transport().call('evals.documents.add', { evaluation_id: own.id, ...document }));
    const matrix = await data(transport().call('evals.matrix', { evaluation_id: own.id, limit: 1000 }));
    expect(matrix.data.map((r: any) => [r.filename, r.similarities, r.statuses])).toEqual([
      ['a.txt', [1], ['succeeded']],
      ['b.txt', [null], ['pending']],
    ]);
    const annotation = { invoice_number: 'INV-1', total: 41 };
    await data(transport().call('evals.documents.update', { evaluation_id: own.id, document_id: matrix.data[0].document_id, annotation }));
    const edited = await data(transport().call('evals.matrix', { evaluation_id: own.id }));
    expect(edited.data[0].similarities[0]).toBeLessThan(1);
  });

  it('evals.matrix refuses an unknown cursor, a limit over 1,000, and another organization', async () => {
    const cursor = await failure(call('evals.matrix', { after: 'file_nope' }));
    expect(cursor.code).toBe('validation_error');
    expect(cursor.issues?.[0]?.path).toBe('after');
    expect((await failure(call('evals.matrix', { limit: 1001 }))).code).toBe('validation_error');
    expect(await failure(transport().call('evals.matrix', { evaluation_id: fixture.evaluation.id }, 'org_b'))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('evals.documents.import previews (dry_run) without writing, then imports and rescores', async () => {
    const content = 'filename,invoice_number,total\none.txt,INV-1,40\nmissing.txt,X,1\n';
    expect(await data(call('evals.documents.import', { format: 'csv', content, dry_run: true }))).toMatchObject({ dry_run: true, updated: 1, refused: 1 });
    const ref = { document_id: fixture.evaluation.documents[0].id };
    expect((await data(call('evals.documents.get', ref))).annotation).toEqual({ invoice_number: 'INV-1', total: 42 });
    expect(await data(call('evals.documents.import', { format: 'csv', content }))).toMatchObject({ dry_run: false, updated: 1, refused: 1 });
    expect((await data(call('evals.documents.get', ref))).annotation).toEqual({ invoice_number: 'INV-1', total: 40 });
    expect((await data(call('evals.iterations.getSummary', { iteration_id: fixture.head.id }))).metric_results.mean_similarity).toBe(1);

    const jsonl = `{"document_id":"${ref.document_id}","annotation":{"invoice_number":"INV-1","total":42}}\n`;
    expect(await data(call('evals.documents.import', { format: 'jsonl', content: jsonl }))).toMatchObject({ updated: 1, refused: 0 });
    const refused = await data(call('evals.documents.import', { format: 'csv', content: 'document_id,total\nfile_nope,1\n' }));
    expect(refused.rows[0]).toMatchObject({ status: 'refused', document_id: 'file_nope' });
  });
}
