import type { JsonObject } from '../json/assert-json.js';
import { readSchemaFields, type FieldNode } from '../extraction/local-rules/schema-fields.js';
import { compareDocuments, isLabeled } from '../metrics/index.js';
import { escapeSegment } from '../metrics/section-walk.js';
import { CalibrationBuilder } from './calibration.js';
import { fieldOf, isFilled, splitPath, valueAt } from './field-paths.js';
import type { AnalysisCounts, FieldStats, FieldSummary } from '../schemas/analysis.js';
import type { AnalysisDocument, AnalysisPrediction } from './types.js';

export type { FieldStats, FieldSummary };

/** How one field fared in one document; `failed`: the extraction failed, the field counts 0. */
export type FieldOutcome = 'exact' | 'partial' | 'missing' | 'unexpected' | 'failed';

interface DocumentField {
  sum: number;
  count: number;
  alignedSum: number;
  alignedCount: number;
  annotationFilled: boolean;
  predictionFilled: boolean;
}

interface FieldTotals {
  documents: number;
  sum: number;
  alignedDocuments: number;
  alignedSum: number;
  exact: number;
  partial: number;
  missing: number;
  unexpected: number;
  failed: number;
  calibration: CalibrationBuilder;
}

/** Per document and field: the mean score in that document and how the field fared. */
export interface DocumentFieldScore {
  field: string;
  similarity: number | null;
  aligned_similarity: number | null;
  outcome: FieldOutcome;
}

/**
 * The fields of one succeeded document: every scored path of its metrics grouped by field (list items collapsed),
 * with the document's mean score per field and its outcome.
 *
 * @example
 * const m = compareDocuments({ items: [{ sku: 'a' }] }, { items: [{ sku: 'b' }] });
 * documentFields({ items: [{ sku: 'a' }] }, { items: [{ sku: 'b' }] }, m); // [{ field: 'items.*.sku', similarity: 0, ... }]
 */
export function documentFields(
  annotation: JsonObject,
  prediction: JsonObject,
  metrics: { flat_similarities: Record<string, number>; aligned_flat_similarities: Record<string, number> },
): DocumentFieldScore[] {
  const fields = new Map<string, DocumentField>();
  const entry = (field: string): DocumentField => {
    let found = fields.get(field);
    if (!found) {
      found = { sum: 0, count: 0, alignedSum: 0, alignedCount: 0, annotationFilled: false, predictionFilled: false };
      fields.set(field, found);
    }
    return found;
  };
  for (const [path, score] of Object.entries(metrics.flat_similarities)) {
    const field = entry(fieldOf(path, annotation, prediction));
    field.sum += score;
    field.count += 1;
    const segments = splitPath(path);
    if (isFilled(valueAt(annotation, segments))) field.annotationFilled = true;
    if (isFilled(valueAt(prediction, segments))) field.predictionFilled = true;
  }
  for (const [path, score] of Object.entries(metrics.aligned_flat_similarities)) {
    const field = entry(fieldOf(path, annotation, prediction));
    field.alignedSum += score;
    field.alignedCount += 1;
  }
  const out: DocumentFieldScore[] = [];
  for (const [name, f] of fields) {
    const similarity = f.count === 0 ? null : f.sum / f.count;
    const aligned = f.alignedCount === 0 ? null : f.alignedSum / f.alignedCount;
    out.push({ field: name, similarity, aligned_similarity: aligned, outcome: outcomeOf(f, similarity) });
  }
  return out;
}

function outcomeOf(f: DocumentField, similarity: number | null): FieldOutcome {
  if (similarity === 1) return 'exact';
  if (f.annotationFilled && !f.predictionFilled) return 'missing';
  if (!f.annotationFilled && f.predictionFilled) return 'unexpected';
  return 'partial';
}

/**
 * The fields of a labeled document whose extraction failed: every field its annotation scores (against no
 * prediction), each counting 0 with the outcome `failed` (docs/spec/analysis.md: a failure counts 0 field by field
 * as in the iteration's mean).
 */
export function failedDocumentFields(annotation: JsonObject): DocumentFieldScore[] {
  return documentFields(annotation, {}, compareDocuments(annotation, {})).map((f) => ({
    field: f.field,
    similarity: 0,
    aligned_similarity: 0,
    outcome: 'failed' as const,
  }));
}

/**
 * Builds the per-field summary of an iteration one document at a time (memory per field, not per document), so a
 * caller can feed it page by page. Unlabeled documents (no ground truth) and pending ones are counted, not summarized;
 * a failed one counts 0 on every field of its annotation; succeeded ones with likelihoods feed the calibration.
 *
 * @example
 * const summary = new FieldSummaryBuilder(evaluation.json_schema);
 * for (const { document, prediction } of page) summary.add(document, prediction);
 * summary.result().fields[0]; // the worst field
 */
export class FieldSummaryBuilder {
  private readonly totals = new Map<string, FieldTotals>();
  private documents = 0;
  private readonly counts: AnalysisCounts = { succeeded: 0, failed: 0, unlabeled: 0, pending: 0 };
  private readonly calibration = new CalibrationBuilder();

  /** `jsonSchema`: every leaf field of the schema is listed, even one no document scored. */
  constructor(jsonSchema?: JsonObject) {
    if (jsonSchema) for (const field of schemaLeafFields(jsonSchema)) this.fieldTotals(field);
  }

  add(document: AnalysisDocument, prediction: AnalysisPrediction): void {
    if (!isLabeled(document.annotation)) {
      this.counts.unlabeled += 1;
      return;
    }
    this.counts[prediction.status] += 1;
    if (prediction.status === 'pending') return;
    if (prediction.status === 'failed') {
      this.addScores(failedDocumentFields(document.annotation));
      return;
    }
    this.addScores(documentFields(document.annotation, prediction.prediction, prediction.metrics));
    if (prediction.likelihoods) this.addLikelihoods(document.annotation, prediction.prediction, prediction.metrics.flat_similarities, prediction.likelihoods);
  }

  /**
   * Every scored leaf path whose likelihood (same shape as the prediction) is a number goes into its field's
   * calibration and the overall one, exact when its score is 1.
   */
  addLikelihoods(annotation: JsonObject, prediction: JsonObject, flat: Record<string, number>, likelihoods: JsonObject): void {
    for (const [path, score] of Object.entries(flat)) {
      const likelihood = valueAt(likelihoods, splitPath(path));
      if (typeof likelihood !== 'number') continue;
      const exact = score === 1;
      this.fieldTotals(fieldOf(path, annotation, prediction)).calibration.add(likelihood, exact);
      this.calibration.add(likelihood, exact);
    }
  }

  /** Adds the per-field scores of one document, as {@link documentFields} gives them. */
  addScores(scores: readonly DocumentFieldScore[]): void {
    this.documents += 1;
    for (const s of scores) {
      const t = this.fieldTotals(s.field);
      if (s.similarity !== null) {
        t.documents += 1;
        t.sum += s.similarity;
        t[s.outcome] += 1;
      }
      if (s.aligned_similarity !== null) {
        t.alignedDocuments += 1;
        t.alignedSum += s.aligned_similarity;
      }
    }
  }

  result(): FieldSummary {
    const fields: FieldStats[] = [];
    for (const [field, t] of this.totals) {
      fields.push({
        field,
        documents: t.documents,
        mean_similarity: t.documents === 0 ? null : t.sum / t.documents,
        aligned_mean_similarity: t.alignedDocuments === 0 ? null : t.alignedSum / t.alignedDocuments,
        exact: t.exact,
        missing: t.missing,
        unexpected: t.unexpected,
        partial: t.partial,
        failed: t.failed,
        calibration: t.calibration.result(),
      });
    }
    fields.sort(worstFirst);
    return { fields, documents: this.documents, counts: { ...this.counts }, calibration: this.calibration.result() };
  }

  private fieldTotals(field: string): FieldTotals {
    let found = this.totals.get(field);
    if (!found) {
      found = {
        documents: 0,
        sum: 0,
        alignedDocuments: 0,
        alignedSum: 0,
        exact: 0,
        partial: 0,
        missing: 0,
        unexpected: 0,
        failed: 0,
        calibration: new CalibrationBuilder(),
      };
      this.totals.set(field, found);
    }
    return found;
  }
}

function worstFirst(a: FieldStats, b: FieldStats): number {
  if (a.mean_similarity === null || b.mean_similarity === null) {
    if (a.mean_similarity !== b.mean_similarity) return a.mean_similarity === null ? 1 : -1;
  } else if (a.mean_similarity !== b.mean_similarity) {
    return a.mean_similarity - b.mean_similarity;
  }
  return a.field < b.field ? -1 : a.field > b.field ? 1 : 0;
}

/**
 * The leaf fields a JSON schema declares, list items collapsed to `*`, in the schema's order.
 *
 * @example
 * schemaLeafFields({ type: 'object', properties: { items: { type: 'array', items: { type: 'object',
 *   properties: { sku: { type: 'string' } } } } } }); // ['items.*.sku']
 */
export function schemaLeafFields(jsonSchema: JsonObject): string[] {
  const out: string[] = [];
  const walk = (node: FieldNode, path: string[]): void => {
    if (node.kind === 'object') {
      for (const property of node.properties) walk(property.node, [...path, escapeSegment(property.key)]);
      if (node.properties.length === 0 && path.length > 0) out.push(path.join('.'));
    } else if (node.kind === 'array') {
      walk(node.items, [...path, '*']);
    } else if (path.length > 0) {
      out.push(path.join('.'));
    }
  };
  walk(readSchemaFields(jsonSchema), []);
  return out;
}

