import { parse } from 'csv-parse/sync';
import type { ErrorIssue } from '../errors.js';
import { readSchemaFields, type FieldNode } from '../extraction/local-rules/schema-fields.js';
import type { JsonObject, JsonValue } from '../json/assert-json.js';
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
 * text `null` is null. Rows that cannot be read are returned with their issues, never thrown.
 *
 * @example
 * parseAnnotations('{"filename":"a.pdf","annotation":{"total":3}}\n', 'jsonl', schema);
 * // [{ row: 1, filename: 'a.pdf', annotation: { total: 3 }, issues: [] }]
 */
export function parseAnnotations(text: string, format: AnnotationFormat, jsonSchema: JsonObject): AnnotationRow[] {
  return format === 'jsonl' ? parseJsonLines(text) : parseCsv(text, readSchemaFields(jsonSchema));
}

function parseJsonLines(text: string): AnnotationRow[] {
  const rows: AnnotationRow[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const row: AnnotationRow = { row: i + 1, issues: [] };
    rows.push(row);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      row.issues.push({ path: `${row.row}`, message: 'this line is not JSON' });
      return;
    }
    if (!isObject(value)) {
      row.issues.push({ path: `${row.row}`, message: 'a line is an object {"document_id" | "filename", "annotation"}' });
      return;
    }
    readKey(row, value.document_id, value.filename);
    if (!isObject(value.annotation)) row.issues.push({ path: `${row.row}.annotation`, message: 'annotation must be an object' });
    else if (row.issues.length === 0) row.annotation = value.annotation;
  });
  return rows;
}

function parseCsv(text: string, schema: FieldNode): AnnotationRow[] {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: false }) as string[][];
  } catch (error) {
    return [{ row: 0, issues: [{ path: '', message: `the CSV cannot be read: ${(error as Error).message}` }] }];
  }
  const [header, ...body] = records;
  if (!header) return [];
  const keyColumn = header.indexOf('document_id') >= 0 ? 'document_id' : header.indexOf('filename') >= 0 ? 'filename' : null;
  if (!keyColumn) {
    return [{ row: 0, issues: [{ path: 'header', message: 'the header needs a document_id or a filename column' }] }];
  }
  const keyIndex = header.indexOf(keyColumn);
  return body.map((cells, i) => {
    const row: AnnotationRow = { row: i + 1, issues: [] };
    readKey(row, keyColumn === 'document_id' ? cells[keyIndex] : undefined, keyColumn === 'filename' ? cells[keyIndex] : undefined);
    const annotation: JsonObject = {};
    header.forEach((column, c) => {
      if (c === keyIndex || column === 'document_id' || column === 'filename') return;
      const text = cells[c] ?? '';
      if (text === '') return;
      const segments = splitPath(column);
      const placed = place(annotation, segments, schema, text);
      if (placed !== null) row.issues.push({ path: `${row.row}.${column}`, message: placed });
    });
    if (row.issues.length === 0) row.annotation = annotation;
    return row;
  });
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
