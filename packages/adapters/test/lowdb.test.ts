import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DocevalsError } from '@docevals/core';
import { runStorageConformance } from '@docevals/adapters/conformance';
import { type LowdbStorage, type LowdbStorageOptions, lowdbStorage } from '@docevals/adapters/lowdb';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { journalText, type JournalEntry } from '../src/lowdb/journal.js';
import { documentRecord, evaluationRecord, iterationRecord, predictionRecord, processorRecord } from '../src/conformance/fixtures.js';
import { startChild, type Child } from './support/child-process.js';
import { contentOf, streamDocument, STREAM_ORG } from './support/lowdb-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'docevals-lowdb-test-'));
let folders = 0;
const freshDir = () => join(root, `store-${++folders}`);
// Tens of thousands of files (the large-batch tests): their removal alone can take half a minute on a slow disk.
afterAll(() => rmSync(root, { recursive: true, force: true }), 180_000);

const written = new WeakMap<object, { bytes: number }>();
const quiet = () => undefined;
const metered = (dir: string) => {
  const meter = { bytes: 0 };
  // The suite's records need not follow the service's rules (an iteration no evaluation lists): no orphan sweep.
  const storage = lowdbStorage({ dir, sweepOrphans: false, log: quiet, onWrite: (w) => void (meter.bytes += w.bytes) });
  written.set(storage, meter);
  return storage;
};

runStorageConformance({
  name: 'lowdb',
  create: () => metered(freshDir()),
  reopen: async (previous) => {
    await previous.close();
    return metered((previous as LowdbStorage).dir);
  },
  writtenBytes: (storage) => written.get(storage)!.bytes,
});

const ORG = 'org_disk';
const opened: LowdbStorage[] = [];
const children: Child[] = [];
const open = (dir: string, options: Partial<LowdbStorageOptions> = {}) => {
  const storage = lowdbStorage({ dir, log: quiet, ...options });
  opened.push(storage);
  return storage;
};
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.process.kill('SIGKILL');
    await child.exited;
  }
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

/** The pid of a process that has just exited (and been reaped): certainly not alive. */
function deadPid(): number {
  const pid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
  expect(() => process.kill(pid, 0)).toThrow();
  return pid;
}

describe('lowdb storage on disk', () => {
  it('keeps its data to its owner: files 0600, folders 0700 (a folder made 0755 before is closed too)', async () => {
    const dir = freshDir();
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const storage = open(dir);
    await storage.evaluations.insert(evaluationRecord(ORG, 'eval_1'));
    await storage.documents.insertMany([documentRecord(ORG, 'eval_1', 'file_0123456789abcdef', 3)]);
    await storage.files.retain(ORG, 'file_0123456789abcdef', { bytes: Uint8Array.from([1]), mime_type: 'application/pdf' });
    await storage.settle(); // a batch's files are written in the background: they too
    const modes: string[] = [];
    const walk = (path: string): void => {
      const stat = statSync(path);
      modes.push(`${stat.isDirectory() ? 'd' : 'f'} ${(stat.mode & 0o777).toString(8)}`);
      if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    };
    walk(dir);
    expect(modes.length).toBeGreaterThan(4);
    expect(new Set(modes)).toEqual(new Set(['d 700', 'f 600']));
  });

  it('writes one file per record, child and file reference, and bytes to <dir>/files/<org>/<file_id>', async () => {
    const dir = freshDir();
    const storage = open(dir);
    const record = evaluationRecord(ORG, 'eval_1');
    await storage.evaluations.insert(record);
    await storage.documents.insertMany([documentRecord(ORG, 'eval_1', 'file_0123456789abcdef', 3)]);
    await storage.files.retain(ORG, 'file_0123456789abcdef', { bytes: Uint8Array.from([0, 1, 255]), mime_type: 'application/pdf' });

    expect(JSON.parse(readFileSync(join(dir, 'store.json'), 'utf8'))).toEqual({ format: 'docevals-lowdb/2' });
    const stored = JSON.parse(readFileSync(join(dir, 'records', 'evaluations', ORG, 'eval_1.json'), 'utf8'));
    expect(stored).toMatchObject({ version: 1, value: record });
    const child = JSON.parse(readFileSync(join(dir, 'children', 'documents', ORG, 'eval_1', 'file_0123456789abcdef.json'), 'utf8'));
    expect(child).toMatchObject({ version: 1, seq: 1, value: documentRecord(ORG, 'eval_1', 'file_0123456789abcdef', 3) });
    const ref = JSON.parse(readFileSync(join(dir, 'refs', ORG, 'file_0123456789abcdef.json'), 'utf8'));
    expect(ref).toMatchObject({ references: 1, mime_type: 'application/pdf', size: 3, file_id: 'file_0123456789abcdef' });
    expect([...readFileSync(join(dir, 'files', ORG, 'file_0123456789abcdef'))]).toEqual([0, 1, 255]);
  });

  it('rewrites only the changed record: one prediction of 1,000 costs one small file, not the iteration', async () => {
    const dir = freshDir();
    const storage = open(dir);
    const many = Array.from({ length: 1000 }, (_, i) => predictionRecord(ORG, 'iter_1', `doc_${i}`, 0.5));
    await storage.predictions.insertMany(many);
    await storage.settle();
    const folder = join(dir, 'children', 'predictions', ORG, 'iter_1');
    const other = statSync(join(folder, 'doc_1.json'));
    await new Promise((r) => setTimeout(r, 20)); // so that a rewrite would show in mtime
    await storage.predictions.put(predictionRecord(ORG, 'iter_1', 'doc_500', 0.9), 1);
    expect(statSync(join(folder, 'doc_1.json')).mtimeMs).toBe(other.mtimeMs);
    expect(JSON.parse(readFileSync(join(folder, 'doc_500.json'), 'utf8'))).toMatchObject({ version: 2, seq: 501 });
    expect(statSync(join(folder, 'doc_500.json')).size).toBeLessThan(2_000);
  });

  it('never rewrites a document file when its record changes or it is retained again', async () => {
    const dir = freshDir();
    const storage = open(dir);
    await storage.files.retain(ORG, 'file_0123456789abcdef', contentOf(1));
    await storage.documents.insertMany([documentRecord(ORG, 'eval_1', 'file_0123456789abcdef')]);
    const path = join(dir, 'files', ORG, 'file_0123456789abcdef');
    const before = statSync(path);
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 10; i++) {
      const current = await storage.documents.get(ORG, 'eval_1', 'file_0123456789abcdef');
      await storage.documents.put({ ...current!.value, annotation: { total: i }, revision: `rev_${i}` }, current!.version);
      await storage.files.retain(ORG, 'file_0123456789abcdef', contentOf(2)); // a later retain with other content
    }
    const after = statSync(path);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect([...readFileSync(path)]).toEqual([...contentOf(1).bytes]);
  });

  it('keeps ids such as __proto__ and constructor as ordinary keys, across a reopen', async () => {
    const dir = freshDir();
    let storage = open(dir, { sweepOrphans: false });
    const record = evaluationRecord('constructor', '__proto__');
    await storage.evaluations.insert(record);
    await storage.documents.insertMany([documentRecord('constructor', '__proto__', 'toString')]);
    await storage.files.retain('__proto__', 'constructor', { bytes: Uint8Array.from([7]), mime_type: 'text/plain' });
    expect(await storage.evaluations.get('constructor', 'toString')).toBeNull();
    await storage.close();
    storage = open(dir, { sweepOrphans: false });
    expect(await storage.evaluations.get('constructor', '__proto__')).toEqual({ value: record, version: 1 });
    expect((await storage.documents.get('constructor', '__proto__', 'toString'))?.version).toBe(1);
    expect((await storage.files.get('__proto__', 'constructor'))?.bytes).toEqual(Uint8Array.from([7]));
  });

  it('keeps every file inside <dir> whatever the organization, parent and ids', async () => {
    const dir = freshDir();
    const storage = open(dir, { sweepOrphans: false });
    await storage.files.retain('../../escape', '../../../etc/x', { bytes: Uint8Array.from([1]), mime_type: 'text/plain' });
    await storage.files.retain('Org', 'FILE', { bytes: Uint8Array.from([2]), mime_type: 'text/plain' });
    await storage.files.retain('org', 'file', { bytes: Uint8Array.from([3]), mime_type: 'text/plain' });
    await storage.documents.insertMany([documentRecord('../x', '../../y', '../../../z'), documentRecord('../x', '../../y', 'a')]);
    await storage.settle();
    expect(readdirSync(dir).sort()).toEqual(['.lock', 'children', 'files', 'journal', 'refs', 'store.json']);
    expect(readdirSync(join(dir, 'files')).every((name) => name === 'org' || name.startsWith('sha256.'))).toBe(true);
    expect((await storage.files.get('Org', 'FILE'))?.bytes).toEqual(Uint8Array.from([2]));
    expect((await storage.files.get('org', 'file'))?.bytes).toEqual(Uint8Array.from([3]));
    expect((await storage.files.get('../../escape', '../../../etc/x'))?.bytes).toEqual(Uint8Array.from([1]));
    expect((await storage.documents.get('../x', '../../y', '../../../z'))?.value.id).toBe('../../../z');
  });

  it('removes temp files, unreferenced contents and orphans at open (sweep), and reports what it did', async () => {
    const dir = freshDir();
    let storage = open(dir);
    await storage.evaluations.insert({ ...evaluationRecord(ORG, 'eval_1'), iteration_ids: ['iter_listed'] });
    await storage.iterations.insert({ ...iterationRecord(ORG, 'iter_listed'), evaluation_id: 'eval_1' });
    await storage.predictions.insertMany([predictionRecord(ORG, 'iter_listed', 'file_kept')]);
    await storage.files.retainMany(ORG, [{ fileId: 'file_kept', content: contentOf(1) }, { fileId: 'file_leaked', content: contentOf(2) }, { fileId: 'file_kept' }]);
    await storage.documents.insertMany([documentRecord(ORG, 'eval_1', 'file_kept')]);
    // What crashes between two writes of one operation leave behind:
    await storage.iterations.insert({ ...iterationRecord(ORG, 'iter_unlisted'), evaluation_id: 'eval_1' }); // never appended
    await storage.predictions.insertMany([predictionRecord(ORG, 'iter_unlisted', 'file_kept')]);
    await storage.documents.insertMany([documentRecord(ORG, 'eval_gone', 'file_kept')]); // evaluation deleted first
    await storage.close();
    writeFileSync(join(dir, 'files', ORG, 'file_orphan'), 'x');
    writeFileSync(join(dir, 'files', ORG, '.file_upload.123.1.tmp'), 'x');
    writeFileSync(join(dir, 'records', 'evaluations', ORG, '.eval_1.json.123.1.tmp'), 'x');
    writeFileSync(join(dir, 'records', 'evaluations', ORG, 'eval_9.json.replay.tmp'), '{"gen":'); // an open killed mid-replay
    mkdirSync(join(dir, 'files', 'org_gone'));
    writeFileSync(join(dir, 'files', 'org_gone', 'file_1'), 'x');

    const logged: string[] = [];
    storage = lowdbStorage({ dir, log: (message) => void logged.push(message) });
    opened.push(storage);
    expect(storage.swept).toMatchObject({ orphanIterations: 1, orphanChildren: 2, fileReferencesFixed: 2 });
    expect(storage.swept.tempFiles).toBeGreaterThanOrEqual(1);
    expect(logged.join('\n')).toContain('sweep');
    expect(await storage.iterations.get(ORG, 'iter_unlisted')).toBeNull();
    expect(await storage.predictions.totals(ORG, 'iter_unlisted')).toEqual({ count: 0, sums: {} });
    expect(await storage.documents.get(ORG, 'eval_gone', 'file_kept')).toBeNull();
    expect((await storage.predictions.totals(ORG, 'iter_listed')).count).toBe(1);
    expect(readdirSync(join(dir, 'files', ORG))).toEqual(['file_kept']);
    expect(readdirSync(join(dir, 'files', 'org_gone'))).toEqual([]);
    expect(readdirSync(join(dir, 'records', 'evaluations', ORG))).toEqual(['eval_1.json']);
    expect(await storage.files.get(ORG, 'file_leaked')).toBeNull();
    // file_kept had 2 references for 1 document: one release now removes it.
    await storage.files.release(ORG, 'file_kept');
    expect(await storage.files.get(ORG, 'file_kept')).toBeNull();
  });

  it('wraps a failed write as a storage_error without a path, logs the details, changes nothing, and recovers', async () => {
    const dir = freshDir();
    const logged: unknown[] = [];
    const storage = lowdbStorage({ dir, log: (message, cause) => void logged.push(message, cause) });
    opened.push(storage);
    await storage.evaluations.insert(evaluationRecord(ORG, 'eval_1'));
    // A file where the organization's folder goes makes the next write of that organization fail.
    mkdirSync(join(dir, 'records', 'processors'), { recursive: true });
    writeFileSync(join(dir, 'records', 'processors', ORG), 'not a folder');
    const error = (await storage.processors.insert(processorRecord(ORG, 'proc_1')).then(
      () => expect.fail('the insert should fail'),
      (e: unknown) => e,
    )) as DocevalsError;
    expect(error).toMatchObject({ name: 'DocevalsError', code: 'storage_error' });
    expect(error.message).toMatch(/^The lowdb storage failed during processors\.insert \(E[A-Z]+\)\.$/);
    expect(error.message).not.toContain(dir);
    expect(String((logged[1] as Error).message)).toContain(dir);
    expect(await storage.processors.get(ORG, 'proc_1')).toBeNull();
    rmSync(join(dir, 'records', 'processors', ORG));
    expect((await storage.processors.insert(processorRecord(ORG, 'proc_1'))).version).toBe(1);
  });

  it('leaves no temp file when a durable write cannot be renamed into place, and the next write of that path works', async () => {
    const dir = freshDir();
    const storage = open(dir, { sweepOrphans: false });
    await storage.evaluations.insert(evaluationRecord(ORG, 'eval_1'));
    // A folder where the record's file goes: the write and fsync of its temp file succeed, the rename fails.
    const folder = join(dir, 'records', 'processors', ORG);
    mkdirSync(join(folder, 'proc_1.json'), { recursive: true });
    await expect(storage.processors.insert(processorRecord(ORG, 'proc_1'))).rejects.toMatchObject({ code: 'storage_error' });
    expect(readdirSync(folder)).toEqual(['proc_1.json']);
    rmSync(join(folder, 'proc_1.json'), { recursive: true });
    expect((await storage.processors.insert(processorRecord(ORG, 'proc_1'))).version).toBe(1);
  });

  it('refuses a damaged record file with a storage_error, leaves it as it is, and frees the folder', async () => {
    const dir = freshDir();
    const storage = open(dir);
    await storage.evaluations.insert(evaluationRecord(ORG, 'eval_1'));
    await storage.close();
    const path = join(dir, 'records', 'evaluations', ORG, 'eval_1.json');
    writeFileSync(path, '{"gen":1,"version":1,"val');
    expect(() => lowdbStorage({ dir, log: () => undefined })).toThrow(expect.objectContaining({ code: 'storage_error', message: expect.stringContaining('could not read the store') }));
    expect(readFileSync(path, 'utf8')).toBe('{"gen":1,"version":1,"val');
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });

  it('reports a truncated or missing document file as a storage_error without a path instead of serving it', async () => {
    const dir = freshDir();
    const storage = lowdbStorage({ dir, log: () => undefined });
    opened.push(storage);
    await storage.files.retain(ORG, 'file_cut', contentOf(1));
    await storage.files.retain(ORG, 'file_lost', contentOf(2));
    writeFileSync(join(dir, 'files', ORG, 'file_cut'), contentOf(1).bytes.subarray(0, 100));
    rmSync(join(dir, 'files', ORG, 'file_lost'));
    await expect(storage.files.get(ORG, 'file_cut')).rejects.toMatchObject({ code: 'storage_error', message: 'The lowdb storage failed during files.get (Error).' });
    await expect(storage.files.get(ORG, 'file_lost')).rejects.toMatchObject({ code: 'storage_error', message: expect.not.stringContaining(dir) });
  });

  it("removes a batch's journal once its files are flushed, for a small batch (fsync each) and a large one (sync -f)", async () => {
    const dir = freshDir();
    const storage = open(dir, { sweepOrphans: false });
    await storage.documents.insertMany([documentRecord(ORG, 'eval_1', 'a', 1), documentRecord(ORG, 'eval_1', 'b', 2)]);
    await storage.documents.insertMany(Array.from({ length: 200 }, (_, i) => documentRecord(ORG, 'eval_2', `f${i}`, 1)));
    await storage.settle();
    // Nothing left to replay: both journals are gone while the store is open (not only at the next open's replay).
    expect(readdirSync(join(dir, 'journal'))).toEqual([]);
    expect(readdirSync(join(dir, 'children', 'documents', ORG, 'eval_1')).filter((f) => !f.startsWith('.')).sort()).toEqual(['a.json', 'b.json']);
  });

  it.each([
    ['lines (this version)', journalText],
    ['one JSON document (earlier versions)', (entry: JournalEntry) => JSON.stringify(entry)],
  ])('replays a batch whose journal (%s) was committed but not applied, without undoing a later write', async (_format, encode) => {
    const dir = freshDir();
    let storage = open(dir, { sweepOrphans: false });
    await storage.documents.put(documentRecord(ORG, 'eval_1', 'b', 2), 0); // gen 1
    await storage.documents.put(documentRecord(ORG, 'eval_1', 'a', 1), 0); // gen 2
    await storage.documents.put(documentRecord(ORG, 'eval_1', 'a', 10), 1); // gen 3
    await storage.close();
    // What a kill after the journal write and before (or during) its application leaves: the journal, records missing.
    // c's annotation holds what a line-based journal must carry intact: line breaks, quotes, backslashes, U+2028.
    const tricky = { ...documentRecord(ORG, 'eval_1', 'c', 3), annotation: { note: 'a\nb\r\n"c"\\ d\u2028e\u2029\tf' } };
    const journal: JournalEntry = {
      gen: 2,
      writes: [
        { path: 'children/documents/org_disk/eval_1/a.json', text: JSON.stringify({ gen: 2, version: 1, seq: 1, value: documentRecord(ORG, 'eval_1', 'a', 1) }) },
        { path: 'children/documents/org_disk/eval_1/c.json', text: JSON.stringify({ gen: 2, version: 1, seq: 3, value: tricky }) },
      ],
      deletes: ['children/documents/org_disk/eval_1/b.json'],
      moves: [],
    };
    mkdirSync(join(dir, 'journal'), { recursive: true });
    writeFileSync(join(dir, 'journal', '000000000002.json'), encode(journal));
    storage = open(dir, { sweepOrphans: false });
    expect(storage.swept.journalsReplayed).toBe(1);
    expect(readdirSync(join(dir, 'journal'))).toEqual([]);
    // a was rewritten later (a newer gen): kept; c was missing: written; b: deleted by the batch.
    expect((await storage.documents.get(ORG, 'eval_1', 'a'))?.value.size).toBe(10);
    expect((await storage.documents.get(ORG, 'eval_1', 'c'))?.value).toEqual(tricky);
    expect(await storage.documents.get(ORG, 'eval_1', 'b')).toBeNull();
    expect(await storage.documents.totals(ORG, 'eval_1')).toEqual({ count: 2, sums: { size: 13 } });
  });

  it('orders writes made while a batch is still being written behind it, on disk and after a reopen', async () => {
    const dir = freshDir();
    let storage = open(dir, { sweepOrphans: false });
    await storage.documents.insertMany(Array.from({ length: 2000 }, (_, i) => documentRecord(ORG, 'eval_1', `f${i}`, 1)));
    // Immediately: the batch's files are still being written in the background.
    await storage.documents.put(documentRecord(ORG, 'eval_1', 'f1999', 50), 1);
    await storage.documents.delete(ORG, 'eval_1', 'f1998');
    await storage.documents.insertMany([documentRecord(ORG, 'eval_2', 'g1', 3), documentRecord(ORG, 'eval_2', 'g2', 4)]);
    expect(await storage.documents.deleteAll(ORG, 'eval_2')).toBe(2);
    await storage.close();
    storage = open(dir, { sweepOrphans: false });
    expect((await storage.documents.get(ORG, 'eval_1', 'f1999'))?.value.size).toBe(50);
    expect(await storage.documents.get(ORG, 'eval_1', 'f1998')).toBeNull();
    expect(await storage.documents.totals(ORG, 'eval_1')).toEqual({ count: 1999, sums: { size: 1998 + 50 } });
    expect(await storage.documents.totals(ORG, 'eval_2')).toEqual({ count: 0, sums: {} });
    expect(readdirSync(join(dir, 'journal'))).toEqual([]);
  });

  it('keeps a file stored again right after a batch released it (its old bytes are removed first, in the background)', async () => {
    const dir = freshDir();
    const storage = open(dir, { sweepOrphans: false });
    const ids = Array.from({ length: 500 }, (_, i) => `f${i}`);
    await storage.files.retainMany(ORG, ids.map((fileId, i) => ({ fileId, content: contentOf(i) })));
    await storage.files.releaseMany(ORG, ids);
    expect(await storage.files.retain(ORG, 'f499', contentOf(7))).toBe(true);
    await storage.files.retainMany(ORG, [{ fileId: 'f498', content: contentOf(8) }]);
    await storage.settle();
    expect((await storage.files.get(ORG, 'f499'))?.bytes).toEqual(contentOf(7).bytes);
    expect((await storage.files.get(ORG, 'f498'))?.bytes).toEqual(contentOf(8).bytes);
    expect(readdirSync(join(dir, 'files', ORG)).sort()).toEqual(['f498', 'f499']);
  });

  it('writes a batch of 1,000 documents as one journal commit, not 1,000 durable writes', async () => {
    const dir = freshDir();
    const writes: string[] = [];
    const storage = lowdbStorage({ dir, sweepOrphans: false, onWrite: (w) => void writes.push(w.collection) });
    opened.push(storage);
    await storage.documents.insertMany(Array.from({ length: 1000 }, (_, i) => documentRecord(ORG, 'eval_1', `f${i}`)));
    await storage.files.retainMany(ORG, Array.from({ length: 1000 }, (_, i) => ({ fileId: `f${i}`, content: contentOf(i) })));
    await storage.files.releaseMany(ORG, Array.from({ length: 1000 }, (_, i) => `f${i}`));
    expect(await storage.documents.deleteAll(ORG, 'eval_1')).toBe(1000);
    expect(writes).toEqual(['documents', 'files', 'files', 'documents']);
    await storage.close();
    const again = open(dir, { sweepOrphans: false });
    expect(await again.documents.totals(ORG, 'eval_1')).toEqual({ count: 0, sums: {} });
    expect(await again.files.get(ORG, 'f1')).toBeNull();
    expect(readdirSync(join(dir, 'children', 'documents', ORG, 'eval_1'))).toEqual([]);
  });

  it("runs another organization's write beside a long batch of one organization (writes are one at a time per organization)", async () => {
    const storage = open(freshDir(), { sweepOrphans: false });
    const order: string[] = [];
    // A's batch holds its organization's turn through a journal of 10,000 records (megabytes, fsync'd); B's single
    // write does not wait for it. With one queue for every organization, B's would end after A's.
    const batch = storage.documents.insertMany(Array.from({ length: 10_000 }, (_, i) => documentRecord(ORG, 'eval_big', `d${i}`))).then(() => order.push('A batch'));
    const single = storage.evaluations.insert(evaluationRecord('org_other', 'eval_b')).then(() => order.push('B write'));
    const sameOrganization = storage.evaluations.insert(evaluationRecord(ORG, 'eval_a')).then(() => order.push('A write'));
    await Promise.all([batch, single, sameOrganization]);
    expect(order).toEqual(['B write', 'A batch', 'A write']);
    expect((await storage.documents.totals(ORG, 'eval_big')).count).toBe(10_000);
  });

  it("stages another organization's file between chunks of a large batch's files, not after all of them", async () => {
    const dir = freshDir();
    const storage = open(dir, { sweepOrphans: false });
    const folder = join(dir, 'children', 'documents', ORG, 'eval_big');
    const written = () => (existsSync(folder) ? readdirSync(folder).filter((f) => !f.startsWith('.')).length : 0);
    // A's batch is committed (its journal); its 20,000 files are then written on the adapter's file thread.
    await storage.documents.insertMany(Array.from({ length: 20_000 }, (_, i) => documentRecord(ORG, 'eval_big', `d${i}`)));
    while (written() === 0) await new Promise((r) => setTimeout(r, 1));
    // B's new file is staged and flushed on that thread too, before B's call resolves: it waits for a chunk of A's
    // files, not for all of them (one task for the whole batch made B wait for the 20,000).
    await storage.files.retainMany('org_other', [{ fileId: 'file_b', content: contentOf(3) }]);
    expect(written()).toBeLessThan(10_000);
    expect((await storage.files.get('org_other', 'file_b'))?.bytes).toEqual(contentOf(3).bytes);
    await storage.settle();
    expect(written()).toBe(20_000);
  });

  it('refuses calls after close() with a storage_error', async () => {
    const storage = open(freshDir());
    await storage.close();
    await expect(storage.evaluations.get(ORG, 'eval_1')).rejects.toMatchObject({ code: 'storage_error' });
    await expect(storage.files.retain(ORG, 'file_1', contentOf(1))).rejects.toMatchObject({ code: 'storage_error' });
  });

  it('finishes writes already under way before close() releases the folder', async () => {
    const dir = freshDir();
    const storage = open(dir);
    const writes = Array.from({ length: 20 }, (_, i) => storage.evaluations.insert(evaluationRecord(ORG, `eval_${i}`)));
    await storage.close();
    await Promise.all(writes);
    const again = open(dir);
    expect((await again.evaluations.list(ORG, { limit: 100, order: 'asc' }))?.items).toHaveLength(20);
  });
});

describe('lowdb folder lock', () => {
  it('holds <dir>/.lock with this pid while open, and removes it on close', async () => {
    const dir = freshDir();
    const storage = open(dir);
    expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8')).pid).toBe(process.pid);
    await storage.close();
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });

  it('refuses a second open of a folder this process has open, until it is closed', async () => {
    const dir = freshDir();
    const first = open(dir);
    expect(() => lowdbStorage({ dir })).toThrow(
      expect.objectContaining({ code: 'storage_error', message: expect.stringContaining(`already open in this process (pid ${process.pid})`) }),
    );
    await first.close();
    expect(() => open(dir)).not.toThrow();
  });

  it('takes over a lock left by a dead process', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, '.lock'), `${deadPid()}\n`);
    const storage = open(dir);
    await storage.evaluations.insert(evaluationRecord(ORG, 'eval_1'));
    expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8')).pid).toBe(process.pid);
  });

  it('takes over a lock carrying this pid that this process did not take (a restarted container)', () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, '.lock'), `${process.pid}\n`);
    open(dir);
    expect(readFileSync(join(dir, '.lock'), 'utf8')).not.toBe(`${process.pid}\n`);
  });

  it('takes over an empty lock once it is too old to be an owner still writing its pid', () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, '.lock'), '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, '.lock'), old, old);
    open(dir);
    expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8')).pid).toBe(process.pid);
  });

  it('treats a lock from another host as live: its pid cannot be checked from here', () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, '.lock'), JSON.stringify({ pid: 1, hostname: 'elsewhere.example' }));
    expect(() => lowdbStorage({ dir })).toThrow(
      expect.objectContaining({ code: 'storage_error', message: expect.stringContaining('(pid 1 on host "elsewhere.example")') }),
    );
  });

  it('refuses a folder whose lock names a live process, naming the folder and the pid', () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, '.lock'), `${process.ppid}\n`);
    expect(() => lowdbStorage({ dir })).toThrow(
      expect.objectContaining({ name: 'DocevalsError', code: 'storage_error', message: expect.stringContaining(`"${dir}" is in use by another process (pid ${process.ppid})`) }),
    );
    expect(readFileSync(join(dir, '.lock'), 'utf8')).toBe(`${process.ppid}\n`);
  });
});

describe('lowdb across processes', () => {
  it('keeps every write a child acknowledged before it was killed with SIGKILL', async () => {
    const dir = freshDir();
    const child = startChild('stream', dir);
    children.push(child);
    await child.waitFor((_, i) => i >= 60);
    child.process.kill('SIGKILL');
    const { signal } = await child.exited;
    expect(signal).toBe('SIGKILL');

    const acknowledged = child.lines.filter((l) => l !== 'ready');
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);
    const storage = open(dir);
    const evaluation = await storage.evaluations.get(STREAM_ORG, 'eval_stream');
    for (const line of acknowledged) {
      const [kind, n] = line.split(' ');
      const i = Number(n);
      if (kind === 'insert') expect(await storage.processors.get(STREAM_ORG, `proc_${i}`), line).not.toBeNull();
      else if (kind === 'update') expect(evaluation!.value.iteration_ids, line).toContain(`iter_${i}`);
      else if (kind === 'document') {
        expect((await storage.documents.get(STREAM_ORG, 'eval_stream', `file_${i}`))?.value, line).toEqual(streamDocument(String(i)));
        expect((await storage.files.get(STREAM_ORG, `file_${i}`))?.bytes, line).toEqual(contentOf(i).bytes);
      } else if (kind === 'batch') {
        for (let k = 0; k < 5; k++) {
          expect(await storage.documents.get(STREAM_ORG, 'eval_stream', `file_${i}_${k}`), line).not.toBeNull();
          expect((await storage.files.get(STREAM_ORG, `file_${i}_${k}`))?.bytes, line).toEqual(contentOf(i + k).bytes);
        }
      } else if (kind === 'putmany') {
        for (let k = 0; k < 5; k++) {
          const key = `${i - 1}_${k}`;
          expect(await storage.documents.get(STREAM_ORG, 'eval_stream', `file_${key}`), line).toEqual({ value: { ...streamDocument(key), annotation: { key, n: i } }, version: 2 });
        }
      } else expect.fail(`unexpected line ${line}`);
    }
    // The totals rebuilt at open agree with the documents read back; the open-time sweep found every file held.
    const page = await storage.documents.list(STREAM_ORG, 'eval_stream', { limit: 10_000 });
    expect((await storage.documents.totals(STREAM_ORG, 'eval_stream')).count).toBe(page!.items.length);
    for (const document of page!.items) expect(await storage.files.get(STREAM_ORG, document.id)).not.toBeNull();
  });

  it('refuses a second process while the first holds the folder, naming the folder and the holder\'s pid', async () => {
    const dir = freshDir();
    const holder = startChild('hold', dir);
    children.push(holder);
    await holder.waitFor((l) => l === 'ready');
    const pid = holder.process.pid!;
    expect(() => lowdbStorage({ dir })).toThrow(
      expect.objectContaining({ code: 'storage_error', message: expect.stringContaining(`"${dir}" is in use by another process (pid ${pid})`) }),
    );

    const other = startChild('open', dir);
    children.push(other);
    const outcome = JSON.parse(await other.waitFor((l) => l.startsWith('{')));
    expect(outcome).toMatchObject({ ok: false, code: 'storage_error' });
    expect(outcome.message).toContain(`"${dir}" is in use by another process (pid ${pid})`);
  });

  it('takes over the lock of a holder that was killed with SIGKILL', async () => {
    const dir = freshDir();
    const holder = startChild('hold', dir);
    children.push(holder);
    await holder.waitFor((l) => l === 'ready');
    const pid = holder.process.pid!;
    holder.process.kill('SIGKILL');
    await holder.exited;
    expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8')).pid).toBe(pid); // left behind, stale

    const other = startChild('open', dir);
    children.push(other);
    expect(JSON.parse(await other.waitFor((l) => l.startsWith('{')))).toEqual({ ok: true });
    const storage = open(dir);
    expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8')).pid).toBe(process.pid);
    await storage.evaluations.insert(evaluationRecord(ORG, 'eval_1'));
  });
});
