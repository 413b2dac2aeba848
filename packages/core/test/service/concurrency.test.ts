import { describe, expect, it } from 'vitest';
import { createInvoices, invoiceDocument, jsonFileExtractor, makeService, ORG } from './fixtures.js';

/** A service whose extractions wait until the test releases them, so a test can act while one is running. */
function gatedService() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const calls: string[] = [];
  const docevals = makeService({ extractors: [jsonFileExtractor({ gate, calls })] });
  const extractionStarted = async () => {
    while (calls.length === 0) await new Promise((r) => setTimeout(r, 1));
  };
  return { docevals, extractionStarted, release };
}

describe('concurrency on one evaluation', () => {
  it('keeps every iteration of 20 created in parallel', async () => {
    const docevals = makeService();
    const evaluation = await createInvoices(docevals, {
      name: 'x',
      documents: [invoiceDocument('a.json', { total: 1 }, { total: 1 })],
    });
    const created = await Promise.all(
      Array.from({ length: 20 }, () => docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id })),
    );
    const listed = await docevals.evals.iterations.list(ORG, { evaluation_id: evaluation.id });
    expect(new Set(listed.data.map((i) => i.id))).toEqual(new Set(created.map((i) => i.id)));
  });

  it('loses no annotation edit, rename or document addition made at the same time', async () => {
    const docevals = makeService();
    const documents = Array.from({ length: 12 }, (_, i) => invoiceDocument(`d${i}.json`, { n: i + 1 }, { total: 0 }));
    const evaluation = await createInvoices(docevals, {
      name: 'x',
      documents,
    });
    await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    const edits = evaluation.documents.map((d, i) =>
      docevals.evals.documents.update(ORG, { evaluation_id: evaluation.id, document_id: d.id, annotation: { total: i + 100 } }),
    );
    const renames = Array.from({ length: 10 }, (_, i) =>
      docevals.evals.update(ORG, { evaluation_id: evaluation.id, name: `name-${i}` }),
    );
    const additions = Array.from({ length: 8 }, (_, i) =>
      docevals.evals.documents.add(ORG, { evaluation_id: evaluation.id, ...invoiceDocument(`new${i}.json`, { m: i }, { total: i }) }),
    );
    const iterations = Array.from({ length: 5 }, () => docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id }));
    await Promise.all([...edits, ...renames, ...additions, ...iterations]);

    const final = await docevals.evals.get(ORG, { evaluation_id: evaluation.id });
    expect(final.documents).toHaveLength(20);
    evaluation.documents.forEach((d, i) => {
      expect(final.documents.find((x) => x.id === d.id)!.annotation).toEqual({ total: i + 100 });
    });
    expect(final.name).toMatch(/^name-\d$/);
    expect(final.iterations).toHaveLength(6);
    // Metrics of every iteration describe the final annotations: the first document's prediction {n: 0} against
    // {total: 100} shares no field, so it scores 0 in every iteration that has it.
    for (const iteration of final.iterations) {
      const first = iteration.metric_results.item_metrics.find((m) => m.id === evaluation.documents[0]!.id)!;
      expect(first.flat_similarities).toEqual({ total: 0, n: 0 });
    }
  });

  it('recomputes the metrics of an iteration that was running while an annotation changed', async () => {
    const { docevals, extractionStarted, release } = gatedService();
    const evaluation = await createInvoices(docevals, {
      name: 'x',
      documents: [invoiceDocument('a.json', { vendor: 'ACME', total: 10 }, { vendor: 'Wrong', total: 99 })],
    });
    const running = docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    await extractionStarted();
    await docevals.evals.documents.update(ORG, {
      evaluation_id: evaluation.id,
      document_id: evaluation.documents[0]!.id,
      annotation: { vendor: 'ACME', total: 10 },
    });
    release();
    const iteration = await running;
    expect(iteration.metric_results.mean_similarity).toBe(1);
    const again = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: iteration.id });
    expect(again.metric_results.mean_similarity).toBe(1);
  });

  it('attaches an iteration before it runs: a structure change while it runs is refused, the iteration completes', async () => {
    const { docevals, extractionStarted, release } = gatedService();
    const evaluation = await createInvoices(docevals, {
      name: 'x',
      documents: [invoiceDocument('a.json', { total: 10 }, { total: 10 })],
    });
    const running = docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id });
    await extractionStarted();
    // The running iteration is listed already (and resumable), so the structure may no longer change.
    const change = docevals.evals.update(ORG, { evaluation_id: evaluation.id, json_schema: { type: 'object', properties: { x: { type: 'string' } } } });
    await expect(change).rejects.toMatchObject({ code: 'conflict' });
    expect((await docevals.evals.iterations.list(ORG, { evaluation_id: evaluation.id, view: 'summary' })).data[0]!.status).toBe('running');
    release();
    const done = await running;
    expect(done.status).toBe('completed');
    expect(done.metric_results.mean_similarity).toBe(1);
  });
});
