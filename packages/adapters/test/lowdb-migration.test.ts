import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareDocuments } from '@docevals/core';
import { type LowdbStorage, lowdbStorage } from '@docevals/adapters/lowdb';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/lowdb-v1', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'docevals-lowdb-migration-'));
let n = 0;
const opened: LowdbStorage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ORG = 'org_fixture';
const A = 'file_aaaaaaaaaaaaaaaa';
const B = 'file_bbbbbbbbbbbbbbbb';

function openCopy(): { dir: string; storage: LowdbStorage; logged: string[] } {
  const dir = join(root, `store-${++n}`);
  cpSync(fixture, dir, { recursive: true });
  rmSync(join(dir, 'README.md'));
  const logged: string[] = [];
  const storage = lowdbStorage({ dir, log: (message) => void logged.push(message) });
  opened.push(storage);
  return { dir, storage, logged };
}

describe('lowdb: a store written by the previous release (docevals.json, layout 1)', () => {
  it('opens, converted to one file per record, keeping versions, documents in order and file references', async () => {
    const { dir, storage, logged } = openCopy();
    expect(logged.join('\n')).toContain('converted docevals.json');
    expect(existsSync(join(dir, 'docevals.json'))).toBe(false);
    expect(existsSync(join(dir, 'docevals.v1.json.migrated'))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['.lock', 'children', 'docevals.v1.json.migrated', 'files', 'records', 'refs', 'store.json']);

    const evaluation = await storage.evaluations.get(ORG, 'eval_fixture');
    expect(evaluation!.version).toBe(3);
    expect(evaluation!.value).not.toHaveProperty('documents');
    expect(evaluation!.value).toMatchObject({ name: 'Invoices', document_count: 2, iteration_ids: ['iter_fixture'] });
    const documents = await storage.documents.list(ORG, 'eval_fixture', { limit: 10 });
    expect(documents!.items.map((d) => [d.id, d.filename, d.mime_type, d.size, d.revision])).toEqual([
      [A, 'a.pdf', 'application/pdf', 5, 'rev_a1'],
      [B, 'b.png', 'image/png', 6, 'rev_b1'],
    ]);
    expect((await storage.processors.get(ORG, 'proc_fixture'))!.version).toBe(2);
    expect(Buffer.from((await storage.files.get(ORG, A))!.bytes).toString()).toBe('PDF-A');
    // The references survived the sweep: each file is held by its document.
    await storage.files.release(ORG, A);
    expect(await storage.files.get(ORG, A)).toBeNull();
  });

  it('gives iterations status completed and predictions their status, metrics and totals', async () => {
    const { storage } = openCopy();
    const iteration = await storage.iterations.get(ORG, 'iter_fixture');
    expect(iteration!.value).not.toHaveProperty('predictions');
    expect(iteration!.value).toMatchObject({ status: 'completed', error: null, lease: null, finished_at: '2026-01-03T00:00:00.000Z' });
    const page = await storage.predictions.list(ORG, 'iter_fixture', { limit: 10 });
    // One per document of the evaluation, in its order; the entry of a document no longer there is dropped.
    expect(page!.items.map((p) => [p.id, p.status])).toEqual([[A, 'succeeded'], [B, 'failed']]);
    const [a, b] = page!.items;
    const expected = compareDocuments({ total: 100, vendor: 'ACME' }, { total: 90, vendor: 'ACME' });
    expect(a!.metrics).toEqual({ ...expected, annotation_revision: 'rev_a1' });
    expect(a!.totals).toMatchObject({ succeeded: 1, failed: 0, similarity: expected.similarity, aligned_similarity: expected.aligned_similarity, cost: 0.002 });
    expect(b!.metadata).toEqual({ error: 'the model answered 500' });
    expect(b!.totals).toMatchObject({ succeeded: 0, failed: 1, similarity: 0, cost: 0 });
    const totals = await storage.predictions.totals(ORG, 'iter_fixture');
    expect(totals.count).toBe(2);
    expect(totals.sums.succeeded).toBe(1);
    expect(totals.sums.similarity).toBeCloseTo(expected.similarity, 12);
  });

  it('opens the converted store again without converting twice', async () => {
    const { dir, storage } = openCopy();
    await storage.documents.put({ ...(await storage.documents.get(ORG, 'eval_fixture', A))!.value, annotation: { total: 1 } }, 1);
    await storage.close();
    const logged: string[] = [];
    const again = lowdbStorage({ dir, log: (message) => void logged.push(message) });
    opened.push(again);
    expect(logged.join('\n')).not.toContain('converted');
    expect((await again.documents.get(ORG, 'eval_fixture', A))!.value.annotation).toEqual({ total: 1 });
  });
});
