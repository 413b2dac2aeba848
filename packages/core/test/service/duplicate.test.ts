import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../support/memory-storage.js';
import { createInvoices, invoiceDocument, makeService, ORG, OTHER_ORG } from './fixtures.js';

describe('evals.duplicate', () => {
  it('copies the evaluation with its documents and ground truth, not its iterations; the copy lives on its own', async () => {
    const storage = memoryStorage();
    const docevals = makeService({ storage });
    const source = await createInvoices(docevals, {
      project_id: 'proj_1',
      documents: [invoiceDocument('a.json', { total: 1 }, { total: 1 }), invoiceDocument('b.json', { total: 2 }, { vendor: 'Acme', total: 3 })],
    });
    await docevals.evals.iterations.create(ORG, { evaluation_id: source.id });

    const copy = await docevals.evals.duplicate(ORG, { evaluation_id: source.id });
    expect(copy.id).not.toBe(source.id);
    expect(copy).toMatchObject({ name: 'Invoices (copy)', project_id: 'proj_1', document_count: 2, iterations: [] });
    expect(copy.json_schema).toEqual(source.json_schema);
    expect(copy.schema_data_id).toBe(source.schema_data_id);
    expect(copy.default_inference_settings).toEqual(source.default_inference_settings);

    const whole = await docevals.evals.get(ORG, { evaluation_id: copy.id });
    expect(whole.documents.map((d) => [d.id, d.mime_data.filename, d.mime_data.url, d.annotation])).toEqual(
      source.documents.map((d) => [d.id, d.mime_data.filename, d.mime_data.url, d.annotation]),
    );

    // An annotation edited in the copy leaves the source's as it was.
    const [first] = whole.documents;
    await docevals.evals.documents.update(ORG, { evaluation_id: copy.id, document_id: first!.id, annotation: { total: 99 } });
    expect((await docevals.evals.documents.get(ORG, { evaluation_id: source.id, document_id: first!.id })).annotation).toEqual({ total: 1 });

    // The copy holds its own reference to each file: deleting the source keeps them.
    await docevals.evals.delete(ORG, { evaluation_id: source.id });
    const content = await docevals.evals.documents.content(ORG, { evaluation_id: copy.id, document_id: first!.id });
    const chunks: Uint8Array[] = [];
    for await (const chunk of content.chunks) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(JSON.stringify({ total: 1 }));
    expect((await docevals.evals.iterations.create(ORG, { evaluation_id: copy.id })).metric_results.mean_similarity).toBeLessThan(1);
    await docevals.evals.delete(ORG, { evaluation_id: copy.id });
    expect(await storage.files.get(ORG, first!.id)).toBeNull();
  });

  it('names the copy as asked, and copies an evaluation without documents', async () => {
    const docevals = makeService();
    const empty = await createInvoices(docevals, { name: 'Empty' });
    const copy = await docevals.evals.duplicate(ORG, { evaluation_id: empty.id, name: 'Empty, v2' });
    expect(copy).toMatchObject({ name: 'Empty, v2', document_count: 0 });
    expect((await docevals.evals.documents.list(ORG, { evaluation_id: copy.id })).data).toEqual([]);
  });

  it('refuses an unknown evaluation, another organization\'s, or an empty name, storing nothing', async () => {
    const docevals = makeService();
    const source = await createInvoices(docevals, { documents: [invoiceDocument('a.json', { total: 1 }, { total: 1 })] });
    await expect(docevals.evals.duplicate(ORG, { evaluation_id: 'eval_missing' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(docevals.evals.duplicate(OTHER_ORG, { evaluation_id: source.id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(docevals.evals.duplicate(ORG, { evaluation_id: source.id, name: '' })).rejects.toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'name' }],
    });
    await expect(docevals.evals.duplicate('', { evaluation_id: source.id })).rejects.toMatchObject({ code: 'unauthorized' });
    expect((await docevals.evals.list(ORG)).data.map((e) => e.id)).toEqual([source.id]);
  });
});
