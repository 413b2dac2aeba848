/** What replay needs to redo a batch. Paths are relative to the store folder (with `/`). */
export interface JournalEntry {
  gen: number;
  writes: Array<{ path: string; text: string }>;
  deletes: string[];
  moves: Array<{ from: string; to: string }>;
}

/**
 * A journal file's text, one line per part: a head `{"gen", "writes": <count>, "deletes", "moves"}`, then for each
 * write its path (a JSON string) and its text as is. A write's text is a record file's JSON, which never holds a raw
 * line break (JSON escapes them), so it needs no escaping here: the former single JSON document escaped every quote of
 * every record again, a tenth of a bulk insert's time on the main thread and a fifth more bytes to write and fsync.
 */
export function journalText(entry: JournalEntry): string {
  return journalLines(entry).join('\n');
}

/** {@link journalText}'s lines, for a writer that streams them (a bulk insert's journal is tens of megabytes). */
export function journalLines(entry: JournalEntry): string[] {
  const lines: string[] = [JSON.stringify({ gen: entry.gen, writes: entry.writes.length, deletes: entry.deletes, moves: entry.moves })];
  for (const write of entry.writes) lines.push(JSON.stringify(write.path), write.text);
  return lines;
}

/** Reads a journal file's text: the lines of {@link journalText}, or the single JSON document earlier versions wrote. */
export function parseJournal(text: string): JournalEntry {
  const end = text.indexOf('\n');
  const head = JSON.parse(end < 0 ? text : text.slice(0, end)) as Omit<JournalEntry, 'writes'> & { writes: JournalEntry['writes'] | number };
  if (Array.isArray(head.writes)) return head as JournalEntry;
  const lines = end < 0 ? [] : text.slice(end + 1).split('\n');
  if (lines.length !== head.writes * 2) throw new Error(`a journal lists ${head.writes} writes but holds ${Math.floor(lines.length / 2)}`);
  const writes: JournalEntry['writes'] = [];
  for (let i = 0; i < lines.length; i += 2) writes.push({ path: JSON.parse(lines[i]!) as string, text: lines[i + 1]! });
  return { gen: head.gen, writes, deletes: head.deletes, moves: head.moves };
}

/** A batch file's text: `gen` first, then the body's fields, then its value (as given when already serialized). */
export function fileText(gen: number, write: { body: object; valueText?: string }): string {
  if (write.valueText === undefined) return JSON.stringify({ gen, ...write.body });
  return `${JSON.stringify({ gen, ...write.body }).slice(0, -1)},"value":${write.valueText}}`;
}
