import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { updateRecord } from '@docevals/core';
import { runStorageConformance } from '@docevals/adapters/conformance';
import { type LowdbStorage, lowdbStorage } from '@docevals/adapters/lowdb';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { evaluationRecord } from '../src/conformance/fixtures.js';
import { startChild, type Child } from './support/child-process.js';
import { contentOf, STREAM_ORG } from './support/lowdb-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'docevals-lowdb-test-'));
let folders = 0;
const freshDir = () => join(root, `store-${++folders}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

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
const open = (dir: string) => {
  const storage = lowdbStorage({ dir });
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
  it('writes records and reference counts to <dir>/docevals.json and bytes to <dir>/files/<org>/<file_id>', async () => {
    const dir = freshDir();
    const storage = open(dir);
    const record = evaluationRecord(ORG, 'eval_1');
    await storage.evaluations.insert(record);
    await storage.files.retain(ORG, 'file_0123456789abcdef', { bytes: Uint8Array.from([0, 1, 255]), mime_type: 'application/pdf' });
    await storage.files.retain(ORG, 'file_0123456789abcdef');

    const json = JSON.parse(readFileSync(join(dir, 'docevals.json'), 'utf8'));
    expect(json.evaluations[ORG].eval_1).toEqual({ version: 1, value: record });
    expect(json.files[ORG].file_0123456789abcdef).toEqual({ references: 2, mime_type: 'application/pdf', size: 3 });
    // The JSON db holds no document bytes.
    expect(JSON.stringify(json)).not.toContain('"bytes"');
    expect([...readFileSync(join(dir, 'files', ORG, 'file_0123456789abcdef'))]).toEqual([0, 1, 255]);
  });

  it('never rewrites a document file when an annotation changes', async () => {
    const dir = freshDir();
    const storage = open(dir);
    await storage.evaluations.insert(evaluationRecord(ORG, 'eval_1'));
    await storage.files.retain(ORG, 'file_0123456789abcdef', contentOf(1));
    const path = join(dir, 'files', ORG, 'file_0123456789abcdef');
    const before = statSync(path);
    await new Promise((r) => setTimeout(r, 20)); // so that a rewrite would show in mtime
    for (let i = 0; i < 10; i++) {
      await updateRecord(storage.evaluations, ORG, 'eval_1', (current) => ({
        write: { ...current, documents: current.documents.map((d) => ({ ...d, annotation: { total: i }, revision: `rev_${i}` })) },
        result: undefined,
      }));
      await storage.files.retain(ORG, 'file_0123456789abcdef', contentOf(2)); // a later retain with other content
    }
    const after = statSync(path);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect([...readFileSync(path)]).toEqual([...contentOf(1).bytes]);
    expect(statSync(join(dir, 'docevals.json')).mtimeMs).toBeGreaterThan(before.mtimeMs);
  });

  it('keeps ids such as __proto__ and constructor as ordinary keys, across a reopen', async () => {
    const dir = freshDir();
    let storage = open(dir);
    const record = evaluationRecord('constructor', '__proto__');
    await storage.evaluations.insert(record);
    await storage.files.retain('__proto__', 'constructor', { bytes: Uint8Array.from([7]), mime_type: 'text/plain' });
    expect(await storage.evaluations.get('constructor', 'toString')).toBeNull();
    await storage.close();
    storage = open(dir);
    expect(await storage.evaluations.get('constructor', '__proto__')).toEqual({ value: record, version: 1 });
    expect((await storage.files.get('__proto__', 'constructor'))?.bytes).toEqual(Uint8Array.from([7]));
  });

  it('keeps file contents inside <dir>/files whatever the organization and file ids', async () => {
    const dir = freshDir();
    const storage = open(dir);
    await storage.files.retain('../../escape', '../../../etc/x', { bytes: Uint8Array.from([1]), mime_type: 'text/plain' });
    await storage.files.retain('Org', 'FILE', { bytes: Uint8Array.from([2]), mime_type: 'text/plain' });
    await storage.files.retain('org', 'file', { bytes: Uint8Array.from([3]), mime_type: 'text/plain' });
    expect(readdirSync(dir).sort()).toEqual(['.lock', 'docevals.json', 'files']);
    expect(readdirSync(join(dir, 'files')).every((name) => name === 'org' || name.startsWith('sha256.'))).toBe(true);
    expect((await storage.files.get('Org', 'FILE'))?.bytes).toEqual(Uint8Array.from([2]));
    expect((await storage.files.get('org', 'file'))?.bytes).toEqual(Uint8Array.from([3]));
    expect((await storage.files.get('../../escape', '../../../etc/x'))?.bytes).toEqual(Uint8Array.from([1]));
  });

  it('removes unreferenced contents and temp files at open', async () => {
    const dir = freshDir();
    let storage = open(dir);
    await storage.files.retain(ORG, 'file_kept', { bytes: Uint8Array.from([1]), mime_type: 'text/plain' });
    await storage.close();
    // What a kill between the content write and the db write leaves behind.
    writeFileSync(join(dir, 'files', ORG, 'file_orphan'), 'x');
    writeFileSync(join(dir, 'files', ORG, '.file_upload.123.1.tmp'), 'x');
    mkdirSync(join(dir, 'files', 'org_gone'));
    writeFileSync(join(dir, 'files', 'org_gone', 'file_1'), 'x');
    storage = open(dir);
    expect(readdirSync(join(dir, 'files', ORG))).toEqual(['file_kept']);
    expect(readdirSync(join(dir, 'files', 'org_gone'))).toEqual([]);
    expect(await storage.files.get(ORG, 'file_orphan')).toBeNull();
    expect(await storage.files.retain(ORG, 'file_orphan')).toBe(false);
  });

  it('wraps a failed write as a storage_error, changes nothing, and recovers once the disk does', async () => {
    const dir = freshDir();
    const storage = open(dir);
    await storage.evaluations.insert(evaluationRecord(ORG, 'eval_1'));
    // A folder where lowdb's temp file goes makes the next write fail (EISDIR).
    mkdirSync(join(dir, '.docevals.json.tmp'));
    await expect(storage.evaluations.insert(evaluationRecord(ORG, 'eval_2'))).rejects.toMatchObject({
      name: 'DocevalsError',
      code: 'storage_error',
      message: expect.stringContaining('The lowdb storage failed during evaluations.insert'),
    });
    await expect(storage.files.retain(ORG, 'file_1', contentOf(1))).rejects.toMatchObject({ code: 'storage_error' });
    expect(await storage.evaluations.get(ORG, 'eval_2')).toBeNull();
    expect(await storage.files.get(ORG, 'file_1')).toBeNull();
    expect(readdirSync(join(dir, 'files', ORG))).toEqual([]);
    rmSync(join(dir, '.docevals.json.tmp'), { recursive: true });
    expect((await storage.evaluations.insert(evaluationRecord(ORG, 'eval_2'))).version).toBe(1);
  });

  it('refuses a damaged docevals.json with a storage_error, leaves it as it is, and frees the folder', () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, 'docevals.json'), '{"format":"docevals-lowdb/1","evalua');
    expect(() => lowdbStorage({ dir })).toThrow(expect.objectContaining({ code: 'storage_error', message: expect.stringContaining('docevals.json') }));
    expect(readFileSync(join(dir, 'docevals.json'), 'utf8')).toBe('{"format":"docevals-lowdb/1","evalua');
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });

  it('reports a truncated or missing document file as a storage_error instead of serving it', async () => {
    const dir = freshDir();
    const storage = open(dir);
    await storage.files.retain(ORG, 'file_cut', contentOf(1));
    await storage.files.retain(ORG, 'file_lost', contentOf(2));
    writeFileSync(join(dir, 'files', ORG, 'file_cut'), contentOf(1).bytes.subarray(0, 100));
    rmSync(join(dir, 'files', ORG, 'file_lost'));
    await expect(storage.files.get(ORG, 'file_cut')).rejects.toMatchObject({
      code: 'storage_error',
      message: expect.stringContaining('has 100 bytes, 4096 were stored'),
    });
    await expect(storage.files.get(ORG, 'file_lost')).rejects.toMatchObject({ code: 'storage_error', message: expect.stringContaining('missing') });
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
      else if (kind === 'retain') expect((await storage.files.get(STREAM_ORG, `file_${i}`))?.bytes, line).toEqual(contentOf(i).bytes);
      else expect.fail(`unexpected line ${line}`);
    }
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
