import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeAndSync } from '../src/lowdb/durable-write.js';
import { journalText, parseJournal, type JournalEntry } from '../src/lowdb/journal.js';

const root = mkdtempSync(join(tmpdir(), 'docevals-journal-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('lowdb journal', () => {
  it('writes lines through its buffer exactly as their joined text: multi-byte characters, lines across the buffer and longer than it', async () => {
    const lines = [
      '',
      'plain',
      'é日本😀'.repeat(1000),
      'x'.repeat((1 << 20) - 3), // over a third of the buffer: written on its own, after what was buffered
      '😀'.repeat(600_000), // 2.4 MB of UTF-8: longer than the buffer, written on its own
      '',
      ...Array.from({ length: 5000 }, (_, i) => `{"i":${i},"s":"ü${'ø'.repeat(i % 300)}"}`),
      'last',
    ];
    const path = join(root, 'lines.txt');
    await writeAndSync(path, lines);
    expect(readFileSync(path, 'utf8')).toBe(lines.join('\n'));
  });

  it('reads back what it wrote, and the single JSON document of earlier versions', () => {
    const entry: JournalEntry = {
      gen: 7,
      writes: [
        { path: 'children/documents/o/e/a.json', text: JSON.stringify({ gen: 7, value: { note: 'a\nb\r"c"\\\u2028\u2029\t' } }) },
        { path: 'refs/o/we"ird\nname.json', text: '{"gen":7}' },
      ],
      deletes: ['children/documents/o/e/b.json'],
      moves: [{ from: 'files/o/.x.tmp', to: 'files/o/x' }],
    };
    expect(parseJournal(journalText(entry))).toEqual(entry);
    expect(parseJournal(JSON.stringify(entry))).toEqual(entry);
    const empty: JournalEntry = { gen: 8, writes: [], deletes: ['a'], moves: [] };
    expect(parseJournal(journalText(empty))).toEqual(empty);
  });

  it('refuses a journal whose lines do not match its count of writes', () => {
    const text = journalText({ gen: 1, writes: [{ path: 'a', text: '{}' }, { path: 'b', text: '{}' }], deletes: [], moves: [] });
    expect(() => parseJournal(text.slice(0, text.lastIndexOf('\n')))).toThrow(/lists 2 writes/);
  });
});
