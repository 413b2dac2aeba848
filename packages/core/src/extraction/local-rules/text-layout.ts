/**
 * The plain-text layout the local-rules extractor reads: "Label: value" lines, section headings, and tables
 * (CSV, Markdown pipe tables, tab-separated and aligned columns).
 */

/** A "Label: value" reading of a line (a line may have several: one per separator that occurs in it). */
export interface LabeledLine {
  label: string;
  value: string;
  line: number;
}

export interface TextTable {
  header: string[];
  rows: string[][];
  /** Line index of the header. */
  line: number;
  /** The nearest non-empty line above the table (its caption or heading), raw. */
  caption: string;
}

export interface Heading {
  text: string;
  line: number;
}

export interface TextLayout {
  lines: string[];
  /** Every way a line splits into a label and a value (`:`, `=`, ` - `, a tab, 2+ spaces, a 2-cell table row). */
  labeled: LabeledLine[];
  headings: Heading[];
  tables: TextTable[];
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|xhtml\+xml|csv|x-csv|ld\+json|x-ndjson|yaml|x-yaml)$)/i;
const TEXT_EXTENSIONS = /\.(txt|text|md|markdown|csv|tsv|json|html?|xml|ya?ml|log)$/i;

/** Whether the local-rules extractor can read the document as text (by its MIME type, or its extension). */
export function isTextDocument(mimeType: string, filename: string): boolean {
  const type = mimeType.split(';')[0]!.trim();
  if (TEXT_TYPES.test(type)) return true;
  return (type === '' || type === 'application/octet-stream') && TEXT_EXTENSIONS.test(filename);
}

export function isHtml(mimeType: string, filename: string): boolean {
  return /html/i.test(mimeType) || /\.html?$/i.test(filename);
}

export function isCsv(mimeType: string, filename: string): boolean {
  return /csv|tab-separated/i.test(mimeType) || /\.(csv|tsv)$/i.test(filename);
}

/** UTF-8 text of the bytes without a byte order mark; invalid sequences become U+FFFD. */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', euro: '€', pound: '£', yen: '¥' };

/**
 * HTML as text: table rows become pipe-table rows (`| a | b |`), `<dt>`/`<th>` labels keep their values beside
 * them, block elements end lines, every other tag falls away and entities are decoded.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head|template)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<tr\b[^>]*>/gi, '\n|')
    .replace(/<\/t[dh]\s*>/gi, ' |')
    .replace(/<dt\b[^>]*>/gi, '\n')
    .replace(/<\/dt\s*>/gi, ': ')
    .replace(/<dd\b[^>]*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(p|div|li|ul|ol|dl|dd|h[1-6]|table|thead|tbody|tfoot|section|article|header|footer|caption)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+\n/g, '\n')
    // Markup between rows leaves blank lines; a table's rows must stay together to be read as one table.
    .replace(/\|\n(?:[ \t]*\n)+(?=[ \t]*\|)/g, '|\n');
}

/** Reads the lines, labeled lines, headings and tables of a text. */
export function readLayout(text: string, options: { csv?: boolean } = {}): TextLayout {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const labeled: LabeledLine[] = [];
  const headings: Heading[] = [];
  lines.forEach((raw, index) => {
    const line = cleanLine(raw);
    if (line === '') return;
    for (const [label, value] of splitLabeled(raw)) labeled.push({ label, value, line: index });
    const below = valueBelow(lines, index);
    if (below !== null) labeled.push({ label: below.label, value: below.value, line: index });
    const heading = asHeading(raw);
    if (heading !== null) headings.push({ text: heading, line: index });
  });
  const tables = options.csv ? readCsvDocument(lines) : findTables(lines);
  // A table of one row and 3+ columns is a horizontal form: each header labels the cell below it.
  for (const table of tables) {
    if (table.rows.length !== 1 || table.header.length < 3) continue;
    table.header.forEach((label, i) => {
      if (label !== '') labeled.push({ label, value: table.rows[0]![i] ?? '', line: table.line + 1 });
    });
  }
  return { lines, labeled, headings, tables };
}

/**
 * "Label:" alone on its line with the value on the next one (a common shape of text taken from PDFs and forms),
 * when that next line is not itself labeled.
 */
function valueBelow(lines: string[], index: number): { label: string; value: string } | null {
  const own = /^(.{1,60}?)\s*:$/.exec(cleanLine(lines[index]!));
  if (!own) return null;
  const next = lines[index + 1]?.trim() ?? '';
  if (next === '' || next.startsWith('|') || /[:=\t]|\s[-–—]\s| {2,}/.test(next)) return null;
  return { label: own[1]!, value: cleanLine(next) };
}

/** Markdown emphasis, list bullets and quote marks around a line fall away. */
function cleanLine(raw: string): string {
  return raw
    .trim()
    .replace(/^(?:[-*+•]\s+|>\s*|\d+[.)]\s+)/, '')
    .replace(/\*\*|__/g, '')
    .trim();
}

// `Label: value`, `Label = value`, `Label - value`, `Label ..... value` (dot leaders), `Label<TAB>value`, `Label   value`.
// For tabs and aligned spaces, a "value" that splits again is a table row, not a label and its value.
const SEPARATORS: Array<{ pattern: RegExp; again?: RegExp }> = [
  { pattern: /\s*:\s*/ },
  { pattern: /\s*=\s*/ },
  { pattern: /\s+[-–—]\s+/ },
  { pattern: /\s*\.{3,}\s*/ },
  { pattern: /\t+/, again: /\t/ },
  { pattern: / {2,}/, again: / {2,}/ },
];

/** Every (label, value) reading of a line: each separator's first occurrence, and 2-cell pipe rows. */
function splitLabeled(raw: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const trimmed = raw.trim();
  if (trimmed.startsWith('|')) {
    const cells = splitPipeRow(trimmed);
    if (cells.length >= 2 && cells[0] !== '' && !isRule(trimmed)) out.push([cells[0]!, cells.slice(1).find((c) => c !== '') ?? '']);
    return out;
  }
  const line = cleanLine(raw);
  for (const { pattern, again } of SEPARATORS) {
    const match = pattern.exec(line);
    if (!match || match.index === 0) continue;
    const label = line.slice(0, match.index).trim();
    const value = line.slice(match.index + match[0].length).trim();
    if (again?.test(value)) continue;
    if (label !== '' && label.length <= 80) out.push([label, value]);
  }
  return out;
}

/** A line that stands alone as a title: `# Customer`, `Customer:`, `[Customer]`, `CUSTOMER`, `Customer` (short). */
function asHeading(raw: string): string | null {
  const line = raw.trim();
  const md = /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
  if (md) return md[1]!.replace(/\*\*|__|:$/g, '').trim();
  const bracket = /^\[(.+)\]$/.exec(line);
  if (bracket) return bracket[1]!.trim();
  const cleaned = cleanLine(raw);
  const colon = /^(.{1,60}?)\s*:$/.exec(cleaned);
  if (colon) return colon[1]!;
  if (cleaned.length > 0 && cleaned.length <= 40 && !/[:=|\t]|\s{2,}|\d/.test(cleaned) && cleaned.split(' ').length <= 4) return cleaned;
  return null;
}

function splitPipeRow(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split('|').map((c) => c.replace(/\*\*|__/g, '').trim());
}

function isRule(line: string): boolean {
  return /^[\s|:+-]+$/.test(line) && line.includes('-');
}

type Splitter = { name: string; accepts: (line: string) => boolean; split: (line: string) => string[] };

const SPLITTERS: Splitter[] = [
  { name: 'pipe', accepts: (l) => l.trim().startsWith('|') || (l.match(/\|/g)?.length ?? 0) >= 2, split: splitPipeRow },
  { name: 'tab', accepts: (l) => l.includes('\t'), split: (l) => l.trim().split(/\t/).map((c) => c.trim()) },
  { name: 'csv', accepts: (l) => l.includes(','), split: (l) => splitDelimited(l, ',') },
  { name: 'semicolon', accepts: (l) => l.includes(';'), split: (l) => splitDelimited(l, ';') },
  { name: 'aligned', accepts: (l) => / {2,}/.test(l.trim()), split: (l) => l.trim().split(/ {2,}/).map((c) => c.trim()) },
];

/** Runs of 2+ consecutive lines that split into the same number (2+) of cells, for every kind of delimiter. */
function findTables(lines: string[]): TextTable[] {
  const tables: TextTable[] = [];
  for (const splitter of SPLITTERS) {
    let start = -1;
    let width = 0;
    let rows: string[][] = [];
    const flush = () => {
      if (start >= 0 && rows.length >= 2) {
        tables.push({ header: rows[0]!, rows: rows.slice(1), line: start, caption: captionAbove(lines, start) });
      }
      start = -1;
      rows = [];
    };
    lines.forEach((raw, index) => {
      if (splitter.name === 'pipe' && isRule(raw.trim()) && start >= 0) return; // the |---|---| row
      const cells = raw.trim() !== '' && splitter.accepts(raw) ? splitter.split(raw) : [];
      if (cells.length >= 2 && (start < 0 || cells.length === width || (splitter.name === 'pipe' && cells.length <= width))) {
        if (start < 0) {
          start = index;
          width = cells.length;
        }
        while (cells.length < width) cells.push('');
        rows.push(cells);
      } else {
        flush();
        if (cells.length >= 2) {
          start = index;
          width = cells.length;
          rows = [cells];
        }
      }
    });
    flush();
  }
  return tables;
}

function captionAbove(lines: string[], start: number): string {
  for (let i = start - 1; i >= 0 && i >= start - 3; i--) {
    const line = lines[i]!.trim();
    if (line !== '') return line;
  }
  return '';
}

/** A CSV/TSV file is one table, header first (a semicolon or tab file when the header says so). */
function readCsvDocument(lines: string[]): TextTable[] {
  const nonEmpty = lines.map((l, i) => ({ l, i })).filter(({ l }) => l.trim() !== '');
  if (nonEmpty.length < 2) return findTables(lines);
  const head = nonEmpty[0]!.l;
  const delimiter = head.includes('\t') ? '\t' : (head.match(/;/g)?.length ?? 0) > (head.match(/,/g)?.length ?? 0) ? ';' : ',';
  const rows = nonEmpty.map(({ l }) => splitDelimited(l, delimiter));
  return [{ header: rows[0]!, rows: rows.slice(1), line: nonEmpty[0]!.i, caption: '' }, ...findTables(lines)];
}

/** One CSV line with quotes (`"a, b"`, `""` for a quote inside). */
function splitDelimited(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (ch === delimiter) {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}
