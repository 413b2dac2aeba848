import { parse as parseCsvStream } from 'csv-parse';
import { parse as parseCsvSync } from 'csv-parse/sync';
import type { ErrorIssue } from '../errors.js';
import { readSchemaFields, type FieldNode } from '../extraction/local-rules/schema-fields.js';
import { findJsonProblem, MAX_JSON_DEPTH, type JsonObject, type JsonValue } from '../json/assert-json.js';
import { FORBIDDEN_KEY, findForbiddenKey } from '../json/json-body-limits.js';
import { LIMITS } from '../limits.js';
import { splitPath } from './field-paths.js';

/** One row of an annotations file, parsed: which document it names and the annotation, or why it is refused. */
export interface AnnotationRow {
  /** 1-based line (JSONL) or record number after the header (CSV). */
  row: number;
  document_id?: string;
  filename?: string;
  /** Absent when the row is refused. */
  annotation?: JsonObject;
  issues: ErrorIssue[];
}

export type AnnotationFormat = 'jsonl' | 'csv';

/**
 * Parses an annotations file (docs/spec/analysis.md): JSON Lines of `{"document_id" | "filename", "annotation"}`, or
 * CSV with a `document_id` or `filename` column and one column per leaf path (`total`, `line_items.0.amount`). CSV
 * cells are typed by the schema (number, integer, boolean; text otherwise); an empty cell leaves the field out, the
 * text `null` is null. Rows that cannot be read are returned with their issues, never thrown; so is an annotation no
 * reader would take (nested past 64 levels, a `__proto__` key), and a list index past the schema's `maxItems` or
 * `LIMITS.maxImportListItems` is refused before any item is allocated.
 *
 * @example
 * parseAnnotations('{"filename":"a.pdf","annotation":{"total":3}}\n', 'jsonl', schema);
 * // [{ row: 1, filename: 'a.pdf', annotation: { total: 3 }, issues: [] }]
 */
export function parseAnnotations(text: string, format: AnnotationFormat, jsonSchema: JsonObject): AnnotationRow[] {
  const rows: AnnotationRow[] = [];
  if (format === 'jsonl') {
    for (const line of lines(text)) {
      const row = jsonLineRow(line.text, line.number);
      if (row) rows.push(row);
    }
    return rows;
  }
  let records: string[][];
  try {
    records = parseCsvSync(text, CSV_OPTIONS) as string[][];
  } catch (error) {
    return [unreadableCsv(error)];
  }
  const reader = new CsvRows(readSchemaFields(jsonSchema));
  for (const record of records) {
    const row = reader.next(record);
    if (row) rows.push(row);
    if (reader.refused) break;
  }
  return reader.refused ? [reader.refused] : rows;
}

/** What {@link parseAnnotationsPaced} may spend. */
export interface PacedParseOptions {
  /** Rows past this many stop the parse: the answer is the rows read so far and `over` says why it stopped. */
  maxRows: number;
  /** CSV cells (rows x header columns) past this many stop the parse the same way; default `LIMITS.maxImportCells`. */
  maxCells?: number;
  /** Awaited between steps; yields to the event loop when its time slice is spent (see `pacer`). */
  pace?: () => Promise<void> | void;
}

/** Characters of CSV handed to the parser between two `pace()` calls (a few milliseconds of parsing). */
const CSV_SLICE_CHARS = 8 * 1024;

/**
 * {@link parseAnnotations} for a server: the same rows, but the text is parsed a slice at a time with `pace()` between
 * slices and rows, so a 30 MB file never holds the event loop, and parsing stops at the first row past `maxRows` or
 * past `maxCells` (`over` says which; nothing past it is kept).
 */
export async function parseAnnotationsPaced(
  text: string,
  format: AnnotationFormat,
  jsonSchema: JsonObject,
  options: PacedParseOptions,
): Promise<{ rows: AnnotationRow[]; over: string | null }> {
  const pace = options.pace ?? (() => undefined);
  const tooManyRows = `at most ${options.maxRows} rows per import; this file has more`;
  const rows: AnnotationRow[] = [];
  if (format === 'jsonl') {
    for (const line of lines(text)) {
      const row = jsonLineRow(line.text, line.number);
      if (!row) continue;
      if (rows.length === options.maxRows) return { rows, over: tooManyRows };
      rows.push(row);
      await pace();
    }
    return { rows, over: null };
  }
  const maxCells = options.maxCells ?? LIMITS.maxImportCells;
  // A scan for quotes and line ends, far cheaper than parsing, sizes the file first: one too large is refused at once.
  const shape = await csvShape(text, pace);
  if ((shape.records - 1) * shape.columns > maxCells) {
    const body = shape.records - 1;
    return { rows: [], over: `at most ${maxCells} cells (rows x columns) per CSV import; this file has ${body} rows of ${shape.columns} columns` };
  }
  if (shape.records - 1 > options.maxRows) return { rows: [], over: tooManyRows };
  const reader = new CsvRows(readSchemaFields(jsonSchema));
  const parser = parseCsvStream(CSV_OPTIONS);
  let failure: unknown = null;
  let over: string | null = null;
  parser.on('error', (error) => {
    failure ??= error;
  });
  const stopped = () => failure !== null || over !== null || reader.refused !== null;
  // Records come out of the stream a tick after their text goes in: read whatever is there, a row at a time.
  const drain = async () => {
    let record: string[] | null;
    while (!stopped() && (record = parser.read() as string[] | null) !== null) {
      const row = reader.next(record);
      if (!row) continue;
      if (rows.length === options.maxRows) over = tooManyRows;
      else if ((rows.length + 1) * reader.width > maxCells) {
        over = `at most ${maxCells} cells (rows x columns) per CSV import; this file has more than ${rows.length} rows of ${reader.width} columns`;
      } else rows.push(row);
      await pace();
    }
  };
  for (let start = 0; start < text.length && !stopped(); start += CSV_SLICE_CHARS) {
    parser.write(text.slice(start, start + CSV_SLICE_CHARS));
    await pace();
    await drain();
  }
  if (!stopped()) {
    const ended = new Promise<void>((resolve) => parser.once('end', resolve).once('error', () => resolve()));
    parser.end();
    // Until the stream ends: read what the last slice gave, then wait for more (or the end).
    while (!stopped() && parser.readableEnded === false) {
      await drain();
      if (stopped() || parser.readableEnded) break;
      await Promise.race([ended, new Promise((resolve) => parser.once('readable', resolve))]);
    }
    await drain();
  }
  parser.destroy();
  if (failure) return { rows: [unreadableCsv(failure)], over: null };
  if (reader.refused) return { rows: [reader.refused], over: null };
  return { rows, over };
}

/**
 * The records (non-empty lines outside quotes) of a CSV text and the columns of its first one, found with `indexOf`
 * (native, far cheaper than parsing): RFC 4180 quotes toggle the quoted state (`""` toggles twice). What the parser
 * finds can only be fewer.
 */
async function csvShape(text: string, pace: () => Promise<void> | void): Promise<{ records: number; columns: number }> {
  let columns = 1;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (!quoted && c === 44) columns += 1;
    else if (!quoted && c === 10 && text.slice(0, i).trim() !== '') break;
  }
  let records = 0;
  let lineHasText = false;
  let nextQuote = text.indexOf('"');
  quoted = false;
  for (let i = 0; i < text.length; ) {
    if (quoted) {
      const close = text.indexOf('"', i);
      if (close < 0) break;
      quoted = false;
      i = close + 1;
      nextQuote = text.indexOf('"', i);
      continue;
    }
    let end = text.indexOf('\n', i);
    if (end < 0) end = text.length;
    if (nextQuote >= 0 && nextQuote < end) {
      quoted = true;
      lineHasText = true;
      i = nextQuote + 1;
      continue;
    }
    if (end - i > 1 || (end - i === 1 && text.charCodeAt(i) !== 13)) lineHasText = true;
    if (lineHasText) records += 1;
    lineHasText = false;
    i = end + 1;
    if ((records & 0xfff) === 0) await pace();
  }
  if (lineHasText) records += 1;
  return { records, columns };
}

const CSV_OPTIONS = { bom: true, skip_empty_lines: true, relax_column_count: false } as const;

function unreadableCsv(error: unknown): AnnotationRow {
  return { row: 0, issues: [{ path: '', message: `the CSV cannot be read: ${(error as Error).message}` }] };
}

/** The non-blank lines of a JSON Lines text with their 1-based numbers, found one at a time (no array of lines). */
function* lines(text: string): Generator<{ text: string; number: number }> {
  let number = 0;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    number += 1;
    const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    if (line.trim() !== '') yield { text: line, number };
    start = end + 1;
  }
}

function jsonLineRow(line: string, number: number): AnnotationRow | null {
  const row: AnnotationRow = { row: number, issues: [] };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    row.issues.push({ path: `${row.row}`, message: 'this line is not JSON' });
    return row;
  }
  if (!isObject(value)) {
    row.issues.push({ path: `${row.row}`, message: 'a line is an object {"document_id" | "filename", "annotation"}' });
    return row;
  }
  readKey(row, value.document_id, value.filename);
  if (!isObject(value.annotation)) row.issues.push({ path: `${row.row}.annotation`, message: 'annotation must be an object' });
  else {
    const problem = storableProblem(value.annotation);
    if (problem) row.issues.push({ path: [`${row.row}`, 'annotation', ...problem.path].join('.'), message: problem.message });
    else if (row.issues.length === 0) row.annotation = value.annotation;
  }
  return row;
}

/** Why no reader would take this annotation (the checks every other write path makes), or null. */
function storableProblem(annotation: JsonObject): { path: string[]; message: string } | null {
  const forbidden = findForbiddenKey(annotation);
  if (forbidden) return { path: forbidden, message: `the key "${FORBIDDEN_KEY}" is not allowed in docevals JSON; rename it` };
  return findJsonProblem(annotation, MAX_JSON_DEPTH);
}

/** The rows of a CSV, one record at a time: the first record is the header. */
class CsvRows {
  private header: string[] | null = null;
  /** Columns of the header. */
  width = 0;
  private keyColumn: 'document_id' | 'filename' = 'document_id';
  private keyIndex = -1;
  private columns: Array<{ column: string; index: number; segments: string[]; refused: string | null }> = [];
  private count = 0;
  /** Set when the header itself is refused: the whole file is. */
  refused: AnnotationRow | null = null;

  constructor(private readonly schema: FieldNode) {}

  next(cells: string[]): AnnotationRow | null {
    if (!this.header) {
      this.readHeader(cells);
      return null;
    }
    this.count += 1;
    const row: AnnotationRow = { row: this.count, issues: [] };
    const { keyColumn, keyIndex } = this;
    readKey(row, keyColumn === 'document_id' ? cells[keyIndex] : undefined, keyColumn === 'filename' ? cells[keyIndex] : undefined);
    const annotation: JsonObject = {};
    for (const { column, index, segments, refused } of this.columns) {
      const text = cells[index] ?? '';
      if (text === '') continue;
      const placed = refused ?? place(annotation, segments, this.schema, text);
      if (placed !== null) row.issues.push({ path: `${row.row}.${column}`, message: placed });
    }
    if (row.issues.length === 0) row.annotation = annotation;
    return row;
  }

  private readHeader(header: string[]): void {
    this.header = header;
    this.width = header.length;
    const keyColumn = header.indexOf('document_id') >= 0 ? 'document_id' : header.indexOf('filename') >= 0 ? 'filename' : null;
    if (!keyColumn) {
      this.refused = { row: 0, issues: [{ path: 'header', message: 'the header needs a document_id or a filename column' }] };
      return;
    }
    this.keyColumn = keyColumn;
    this.keyIndex = header.indexOf(keyColumn);
    header.forEach((column, index) => {
      if (index === this.keyIndex || column === 'document_id' || column === 'filename') return;
      const segments = splitPath(column);
      this.columns.push({ column, index, segments, refused: columnProblem(segments) });
    });
  }
}

/** Why a column's path can never be stored (too deep, a forbidden key), or null. */
function columnProblem(segments: string[]): string | null {
  if (segments.length > MAX_JSON_DEPTH) return `JSON nests deeper than ${MAX_JSON_DEPTH} levels; flatten the value`;
  if (segments.includes(FORBIDDEN_KEY)) return `the key "${FORBIDDEN_KEY}" is not allowed in docevals JSON; rename it`;
  return null;
}

/** Puts the typed cell at `segments`; returns why it cannot, or null. */
function place(root: JsonObject, segments: string[], schema: FieldNode, text: string): string | null {
  let container: JsonObject | JsonValue[] = root;
  let node: FieldNode | undefined = schema;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    const child: FieldNode | undefined = childNode(node, segment);
    const isIndex = node?.kind === 'array';
    if (isIndex && !/^(0|[1-9][0-9]{0,4})$/.test(segment)) return `"${segment}" is not a list index`;
    if (node?.kind === 'array' && Number(segment) >= Math.min(node.maxItems ?? Infinity, LIMITS.maxImportListItems)) {
      const bound = Math.min(node.maxItems ?? Infinity, LIMITS.maxImportListItems);
      return `the list index ${segment} is past the list's last place (at most ${bound} items: the schema's maxItems, and ${LIMITS.maxImportListItems} in an import)`;
    }
    if (last) {
      const value = typed(text, child);
      if (!value.ok) return value.error;
      setAt(container, segment, isIndex, value.value);
      return null;
    }
    const nextIsList = child?.kind === 'array';
    let next: JsonValue | undefined = getAt(container, segment, isIndex);
    if (next === undefined || next === null || typeof next !== 'object') {
      next = nextIsList ? [] : {};
      setAt(container, segment, isIndex, next);
    }
    container = next as JsonObject | JsonValue[];
    node = child;
  }
  return null;
}

function childNode(node: FieldNode | undefined, segment: string): FieldNode | undefined {
  if (!node) return undefined;
  if (node.kind === 'array') return node.items;
  if (node.kind === 'object') return node.properties.find((p) => p.key === segment)?.node;
  return undefined;
}

function getAt(container: JsonObject | JsonValue[], segment: string, isIndex: boolean): JsonValue | undefined {
  if (isIndex) return (container as JsonValue[])[Number(segment)];
  return Object.prototype.hasOwnProperty.call(container, segment) ? (container as JsonObject)[segment] : undefined;
}

function setAt(container: JsonObject | JsonValue[], segment: string, isIndex: boolean, value: JsonValue): void {
  if (isIndex) {
    const list = container as JsonValue[];
    const index = Number(segment);
    while (list.length < index) list.push(null);
    list[index] = value;
  } else {
    Object.defineProperty(container, segment, { value, enumerable: true, writable: true, configurable: true });
  }
}

type Typed = { ok: true; value: JsonValue } | { ok: false; error: string };

function typed(text: string, node: FieldNode | undefined): Typed {
  if (text === 'null') return { ok: true, value: null };
  const types = node?.kind === 'scalar' ? node.types : [];
  if (types.length === 0) return { ok: true, value: text };
  for (const type of types) {
    if (type === 'string') return { ok: true, value: text };
    if ((type === 'number' || type === 'integer') && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text.trim())) {
      const n = Number(text.trim());
      if (type === 'number' || Number.isInteger(n)) return { ok: true, value: n };
    }
    if (type === 'boolean' && (text === 'true' || text === 'false')) return { ok: true, value: text === 'true' };
  }
  return { ok: false, error: `"${text.length > 40 ? text.slice(0, 40) + '…' : text}" is not ${types.join(' or ')}` };
}

function readKey(row: AnnotationRow, documentId: unknown, filename: unknown): void {
  if (typeof documentId === 'string' && documentId !== '') row.document_id = documentId;
  else if (typeof filename === 'string' && filename !== '') row.filename = filename;
  else row.issues.push({ path: `${row.row}`, message: 'each row names its document by "document_id" or "filename"' });
}

function isObject(value: unknown): value is Record<string, unknown> & JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
