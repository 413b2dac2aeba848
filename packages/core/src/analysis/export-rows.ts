import { stringify } from 'csv-stringify/sync';
import type { JsonObject, JsonValue } from '../json/assert-json.js';
import { isLabeled } from '../metrics/index.js';
import { escapeSegment } from '../metrics/section-walk.js';
import { splitPath, valueAt } from './field-paths.js';
import type { AnalysisDocument, AnalysisPrediction } from './types.js';

/** One row of an export: one leaf field of one document (docs/spec/analysis.md). */
export interface ExportRow {
  document_id: string;
  filename: string;
  /** `succeeded`, `failed` or `pending`. */
  status: AnalysisPrediction['status'];
  /** The metric path of the leaf (`line_items.0.amount`). */
  field: string;
  annotation: JsonValue | null;
  prediction: JsonValue | null;
  /** The leaf's score; null for a pending document. */
  similarity: number | null;
  /** The leaf's score after alignment, at the same path; null where alignment scored no such path. */
  aligned_similarity: number | null;
  /**
   * The document's outcome as the figures count it: `unlabeled` (no ground truth: in no mean), else the status. A
   * failed document's leaves score 0, as the failure counts in the means.
   */
  outcome: AnalysisPrediction['status'] | 'unlabeled';
}

/** The CSV columns, in order. */
export const EXPORT_COLUMNS = [
  'document_id',
  'filename',
  'status',
  'field',
  'annotation',
  'prediction',
  'similarity',
  'aligned_similarity',
  'outcome',
] as const satisfies ReadonlyArray<keyof ExportRow>;

/**
 * The rows of one document: every scored leaf path, in the metrics' order. A pending document (no prediction) lists
 * the annotation's leaves with an empty prediction and no score.
 *
 * @example
 * exportRows({ id: 'file_1', filename: 'a.pdf', annotation: { total: 1 } },
 *   { status: 'succeeded', prediction: { total: 2 }, metrics, cost: null }); // [{ field: 'total', ... }]
 */
export function exportRows(document: AnalysisDocument, prediction: AnalysisPrediction): ExportRow[] {
  const outcome = isLabeled(document.annotation) ? prediction.status : 'unlabeled';
  const base = { document_id: document.id, filename: document.filename, status: prediction.status };
  if (prediction.status === 'pending' || prediction.metrics === null) {
    return leafPaths(document.annotation).map((field) => ({
      ...base,
      field,
      annotation: valueAt(document.annotation, splitPath(field)) ?? null,
      prediction: null,
      similarity: null,
      aligned_similarity: null,
      outcome,
    }));
  }
  const failed = prediction.status === 'failed';
  const { flat_similarities: flat, aligned_flat_similarities: aligned } = prediction.metrics;
  return Object.entries(flat).map(([field, similarity]) => {
    const segments = splitPath(field);
    return {
      ...base,
      field,
      annotation: valueAt(document.annotation, segments) ?? null,
      prediction: valueAt(prediction.prediction, segments) ?? null,
      similarity: failed ? 0 : similarity,
      aligned_similarity: !Object.prototype.hasOwnProperty.call(aligned, field) ? null : failed ? 0 : aligned[field]!,
      outcome,
    };
  });
}

function leafPaths(value: JsonObject): string[] {
  const out: string[] = [];
  const walk = (node: JsonValue, path: string[]): void => {
    if (node !== null && typeof node === 'object') {
      const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node);
      if (entries.length > 0 || path.length === 0) {
        for (const [key, child] of entries) walk(child, [...path, escapeSegment(key)]);
        return;
      }
    }
    out.push(path.join('.'));
  };
  walk(value, []);
  return out;
}

/**
 * A text cell a spreadsheet would read as a formula, made inert as OWASP recommends ("CSV injection"): text beginning
 * with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`. Everything else is left as it is.
 *
 * @example
 * neutralizeCell('=HYPERLINK("http://x")'); // "'=HYPERLINK(\"http://x\")"
 */
export function neutralizeCell(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/**
 * A value in a CSV cell: text as it is (neutralized unless `raw`), null as an empty cell, numbers and booleans as
 * JSON, containers as JSON (they begin with `[` or `{`). A JSON number is never neutralized: `-5` stays a number.
 */
function cell(value: JsonValue | null, raw: boolean): string {
  if (value === null) return '';
  if (typeof value === 'string') return raw ? value : neutralizeCell(value);
  return JSON.stringify(value);
}

/** The CSV header line (with its line end). */
export function csvHeader(): string {
  return stringify([[...EXPORT_COLUMNS]]);
}

/** How CSV cells are written. */
export interface CsvOptions {
  /** true: text cells exactly as stored, formula-like ones included (`?raw=true`). Default false: neutralized. */
  raw?: boolean;
}

/** CSV text of rows (RFC 4180 quoting by csv-stringify; every line ends with `\n`); text cells neutralized unless `raw`. */
export function csvLines(rows: readonly ExportRow[], options: CsvOptions = {}): string {
  if (rows.length === 0) return '';
  const raw = options.raw === true;
  const text = (value: string) => (raw ? value : neutralizeCell(value));
  return stringify(
    rows.map((r) => [
      text(r.document_id),
      text(r.filename),
      r.status,
      text(r.field),
      cell(r.annotation, raw),
      cell(r.prediction, raw),
      r.similarity === null ? '' : String(r.similarity),
      r.aligned_similarity === null ? '' : String(r.aligned_similarity),
      r.outcome,
    ]),
  );
}

/** JSON Lines text of rows: one object per line, values as JSON. */
export function jsonLines(rows: readonly ExportRow[]): string {
  let out = '';
  for (const row of rows) out += JSON.stringify(row) + '\n';
  return out;
}
