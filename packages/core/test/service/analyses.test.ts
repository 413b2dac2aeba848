import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { Extractor } from '@docevals/core';
import { createInvoices, invoiceDocument, invoiceSchema, jsonFileExtractor, makeService, ORG, OTHER_ORG } from './fixtures.js';

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const chunk of chunks) out += chunk;
  return out;
}

/** Three documents and two imported iterations: `head` regresses `total` on a.json and improves `vendor` on b.json. */
async function seeded() {
  const docevals = makeService();
  const evaluation = await createInvoices(docevals, {
    name: 'Invoices',
    documents: [
      invoiceDocument('a.json', { vendor: 'ACME', total: 10 }, { vendor: 'ACME', total: 10 }),
      invoiceDocument('b.json', { vendor: 'Globex', total: 20 }, { vendor: 'Globex', total: 20 }),
      invoiceDocument('c.json', { vendor: 'Initech', total: 30 }, { vendor: 'Initech', total: 30 }),
    ],
    iterations: [
      {
        inference_settings: { model: 'base-model' },
        predictions: [
          { prediction: { vendor: 'ACME', total: 10 } },
          { prediction: { vendor: 'Glob', total: 20 } },
          { prediction: { vendor: 'Initech', total: 30 } },
        ],
      },
      {
        inference_settings: { model: 'head-model', temperature: 0.5 },
        predictions: [
          { prediction: { vendor: 'ACME', total: 99 } },
          { prediction: { vendor: 'Globex', total: 20 } },
          { prediction: {}, metadata: { error: 'provider timeout' } },
        ],
      },
    ],
  });
  const [base, head] = evaluation.iterations;
  return { docevals, evaluation, base: base!, head: head! };
}

describe('analyses through the service', () => {
  it('compares two iterations: the regressed field first, exact document lists, a failed document counting 0', async () => {
    const { docevals, evaluation, base, head } = await seeded();
    const c = await docevals.evals.compare(ORG, { evaluation_id: evaluation.id, base: base.id, head: head.id });
    expect(c.base_iteration_id).toBe(base.id);
    expect(c.compared_documents).toBe(3);
    expect(c.fields[0]!.field).toBe('total');
    expect(c.fields[0]!.delta!).toBeLessThan(0);
    expect(c.regressed.map((d) => d.filename)).toEqual(['c.json', 'a.json']);
    expect(c.improved.map((d) => d.filename)).toEqual(['b.json']);
    expect(c.excluded).toEqual([]);
    expect(c.head_counts).toEqual({ succeeded: 2, failed: 1, unlabeled: 0, pending: 0 });
    expect(c.failures).toMatchObject({ base: 0, head: 1, delta: 1 });
  });

  it('summarizes fields of one iteration worst first, a failed document counting 0 on each field', async () => {
    const { docevals, evaluation, head } = await seeded();
    const summary = await docevals.evals.iterations.fields(ORG, { evaluation_id: evaluation.id, iteration_id: head.id });
    expect(summary.documents).toBe(3);
    expect(summary.counts).toEqual({ succeeded: 2, failed: 1, unlabeled: 0, pending: 0 });
    expect(summary.fields.map((f) => f.field)).toEqual(['total', 'vendor']);
    expect(summary.fields[1]).toMatchObject({ mean_similarity: 2 / 3, exact: 2, failed: 1, documents: 3 });
    expect(summary.calibration).toBeNull();
  });

  it('ranks iterations with only the settings that differ', async () => {
    const { docevals, evaluation, base, head } = await seeded();
    const board = await docevals.evals.leaderboard(ORG, { evaluation_id: evaluation.id });
    expect(board.rows.map((r) => r.iteration_id)).toEqual([base.id, head.id]);
    expect(board.differing_settings).toEqual(['model', 'temperature']);
    expect(board.rows[1]).toMatchObject({ succeeded: 2, failed: 1, pending: 0 });
  });

  it('names the iterations in the leaderboard\'s rows and the matrix\'s columns (null until named), a rename shown at once', async () => {
    const { docevals, evaluation, base, head } = await seeded();
    const ref = { evaluation_id: evaluation.id };
    expect((await docevals.evals.leaderboard(ORG, ref)).rows.map((r) => r.name)).toEqual([null, null]);
    await docevals.evals.iterations.updateMetadata(ORG, { ...ref, iteration_id: head.id, name: 'Prompt v2' });
    const board = await docevals.evals.leaderboard(ORG, ref);
    expect(board.rows.map((r) => [r.iteration_id, r.name])).toEqual([[base.id, null], [head.id, 'Prompt v2']]);
    const matrix = await docevals.evals.matrix(ORG, ref);
    expect(matrix.iterations.map((it) => [it.id, it.name, it.model])).toEqual([[base.id, null, 'base-model'], [head.id, 'Prompt v2', 'head-model']]);
    await docevals.evals.iterations.updateMetadata(ORG, { ...ref, iteration_id: head.id, name: null });
    expect((await docevals.evals.matrix(ORG, ref)).iterations[1]!.name).toBeNull();
  });

  it('tells an all-free iteration (cost 0) from one whose cost is unknown (null) on the leaderboard', async () => {
    // The json-file model reports no api_cost; `priced-*` models report one per document: 0 for free, 0.25 for paid.
    const priced: Extractor = {
      name: 'priced',
      models: ['priced-free', 'priced-paid'],
      extract: async ({ document, settings }) => ({
        data: JSON.parse(Buffer.from(document.bytes).toString('utf8')),
        api_cost: { value: settings.model === 'priced-paid' ? 0.25 : 0, currency: 'USD' },
      }),
    };
    const docevals = makeService({ extractors: [jsonFileExtractor(), priced] });
    const evaluation = await createInvoices(docevals, {
      documents: [invoiceDocument('a.json', { total: 1 }, { total: 1 }), invoiceDocument('b.json', { total: 2 }, { total: 2 })],
    });
    const run = async (model: string) =>
      (await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, inference_settings: { model } })).id;
    const unknown = await run('json-file');
    const free = await run('priced-free');
    const paid = await run('priced-paid');
    const board = await docevals.evals.leaderboard(ORG, { evaluation_id: evaluation.id, sort: 'cost' });
    const cost = Object.fromEntries(board.rows.map((r) => [r.iteration_id, r.cost]));
    expect(cost).toEqual({ [unknown]: null, [free]: 0, [paid]: 0.5 });
    // Cheapest first; the unknown cost sorts last.
    expect(board.rows.map((r) => r.iteration_id)).toEqual([free, paid, unknown]);
  });

  it('exports an iteration as CSV that parses back to the stored values', async () => {
    const { docevals, evaluation, base } = await seeded();
    const out = await docevals.evals.iterations.export(ORG, { evaluation_id: evaluation.id, iteration_id: base.id, format: 'csv' });
    expect(out.filename).toBe(`${base.id}.csv`);
    const rows = parse(await collect(out.chunks), { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(6);
    expect(rows[2]).toMatchObject({ filename: 'b.json', field: 'vendor', annotation: 'Globex', prediction: 'Glob', status: 'succeeded' });
  });

  it('imports annotations by filename and id, refusing unknown documents and ill-typed cells without changing them', async () => {
    const { docevals, evaluation, base } = await seeded();
    const csv = 'filename,vendor,total\na.json,ACME,11\nnope.json,X,1\nb.json,Globex,abc\n';
    const result = await docevals.evals.documents.import(ORG, { evaluation_id: evaluation.id, format: 'csv', content: csv });
    expect(result.updated).toBe(1);
    expect(result.rows.map((r) => r.status)).toEqual(['updated', 'refused', 'refused']);
    expect(result.rows[1]!.issues[0]!.message).toMatch(/no document named nope.json/);
    expect(result.rows[2]!.issues[0]!.path).toBe('3.total');
    const a = await docevals.evals.documents.get(ORG, { evaluation_id: evaluation.id, document_id: evaluation.documents[0]!.id });
    expect(a.annotation).toEqual({ vendor: 'ACME', total: 11 });
    const b = await docevals.evals.documents.get(ORG, { evaluation_id: evaluation.id, document_id: evaluation.documents[1]!.id });
    expect(b.annotation).toEqual({ vendor: 'Globex', total: 20 });
    // The iteration's metrics follow the imported annotation.
    const page = await docevals.evals.iterations.predictions(ORG, { evaluation_id: evaluation.id, iteration_id: base.id, limit: 1 });
    expect(page.data[0]!.metrics.flat_similarities.total).toBeLessThan(1);

    const jsonl = `{"document_id":"${evaluation.documents[1]!.id}","annotation":{"vendor":"Glob","total":20}}\n`;
    const second = await docevals.evals.documents.import(ORG, { evaluation_id: evaluation.id, format: 'jsonl', content: jsonl });
    expect(second.rows[0]).toMatchObject({ status: 'updated', document_id: evaluation.documents[1]!.id });
  });

  it('previews an import (dry_run): every row answered as the import would answer it, nothing written', async () => {
    const { docevals, evaluation, base } = await seeded();
    const before = await docevals.evals.iterations.predictions(ORG, { evaluation_id: evaluation.id, iteration_id: base.id, limit: 3 });
    const csv = `document_id,vendor,total\n${evaluation.documents[0]!.id},ACME,11\nno-such-document,X,1\n${evaluation.documents[1]!.id},Globex,abc\n`;
    const preview = await docevals.evals.documents.import(ORG, { evaluation_id: evaluation.id, format: 'csv', content: csv, dry_run: true });
    expect(preview).toMatchObject({ dry_run: true, updated: 1, refused: 2 });
    expect(preview.rows.map((r) => r.status)).toEqual(['updated', 'refused', 'refused']);
    expect(preview.rows[1]!.issues[0]!.message).toMatch(/no-such-document/);
    expect(preview.rows[2]!.issues[0]!.path).toBe('3.total');
    const a = await docevals.evals.documents.get(ORG, { evaluation_id: evaluation.id, document_id: evaluation.documents[0]!.id });
    expect(a.annotation).toEqual({ vendor: 'ACME', total: 10 });
    const after = await docevals.evals.iterations.predictions(ORG, { evaluation_id: evaluation.id, iteration_id: base.id, limit: 3 });
    expect(after).toEqual(before);
    // The same file applied answers the same rows, and writes.
    const applied = await docevals.evals.documents.import(ORG, { evaluation_id: evaluation.id, format: 'csv', content: csv });
    expect(applied).toEqual({ ...preview, dry_run: false });
    const written = await docevals.evals.documents.get(ORG, { evaluation_id: evaluation.id, document_id: evaluation.documents[0]!.id });
    expect(written.annotation).toEqual({ vendor: 'ACME', total: 11 });
  });

  it('imports 600 rows in batches: refused rows change nothing, a document named twice gets its last row, totals follow', async () => {
    const docevals = makeService();
    const n = 600;
    const evaluation = await docevals.evals.create(ORG, {
      name: 'Many',
      json_schema: invoiceSchema,
      default_inference_settings: { model: 'json-file' },
      documents: Array.from({ length: n }, (_, i) => invoiceDocument(`d${i}.json`, { total: i }, { vendor: 'V', total: i })),
      iterations: [{ inference_settings: { model: 'base-model' }, predictions: Array.from({ length: n }, (_, i) => ({ prediction: { vendor: 'V', total: i } })) }],
    });
    const ids = evaluation.documents.map((d) => d.id);
    const rows = ids.map((id, i) => ({ document_id: id, annotation: { vendor: 'V', total: i % 2 === 0 ? i : i + 0.5 } }));
    rows.splice(300, 0, { document_id: 'file_unknown', annotation: { vendor: 'V', total: 1 } }); // row 301
    rows.push({ document_id: ids[5]!, annotation: { vendor: 'V', total: 'abc' as unknown as number } }); // row 602: wrong type
    rows.push({ document_id: ids[7]!, annotation: { vendor: 'Last', total: 7 } }); // row 603: ids[7] again
    const content = rows.map((r) => JSON.stringify(r)).join('\n');
    const result = await docevals.evals.documents.import(ORG, { evaluation_id: evaluation.id, format: 'jsonl', content });
    expect(result.refused).toBe(2);
    expect(result.updated).toBe(n + 1);
    expect(result.rows).toHaveLength(n + 3);
    expect(result.rows[300]).toMatchObject({ row: 301, document_id: 'file_unknown', status: 'refused' });
    expect(result.rows[300]!.issues[0]!.message).toMatch(/file_unknown/);
    expect(result.rows[601]).toMatchObject({ row: 602, document_id: ids[5], status: 'refused' });
    expect(result.rows[601]!.issues[0]!.path).toBe('602.annotation.total');
    const doc = async (i: number) => (await docevals.evals.documents.get(ORG, { evaluation_id: evaluation.id, document_id: ids[i]! })).annotation;
    expect(await doc(5)).toEqual({ vendor: 'V', total: 5.5 }); // its valid row, not the refused one
    expect(await doc(7)).toEqual({ vendor: 'Last', total: 7 });
    expect(await doc(599)).toEqual({ vendor: 'V', total: 599.5 });
    // Every prediction was refreshed and the totals moved with it: the summary (running totals) equals the mean of
    // the metrics computed against the stored annotations.
    const iteration_id = evaluation.iterations[0]!.id;
    const summary = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id, view: 'summary' });
    const full = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id });
    const items = 'item_metrics' in full.metric_results ? full.metric_results.item_metrics : [];
    expect(items).toHaveLength(n);
    const mean = items.reduce((sum, m) => sum + m.similarity, 0) / n;
    expect(mean).toBeLessThan(1);
    expect(summary.metric_results.mean_similarity).toBeCloseTo(mean, 9);
  });

  it("answers not_found for another organization's evaluation", async () => {
    const { docevals, evaluation, base, head } = await seeded();
    await expect(docevals.evals.compare(OTHER_ORG, { evaluation_id: evaluation.id, base: base.id, head: head.id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(docevals.evals.iterations.export(OTHER_ORG, { evaluation_id: evaluation.id, iteration_id: base.id })).rejects.toMatchObject({ code: 'not_found' });
  });
});
