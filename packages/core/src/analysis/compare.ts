import { isLabeled } from '../metrics/index.js';
import { documentFields, failedDocumentFields, FieldSummaryBuilder, type DocumentFieldScore, type FieldStats } from './field-summary.js';
import { pairedBootstrap } from './paired-bootstrap.js';
import type { AnalysisCounts, DocumentDelta, ExcludedDocument, FieldDelta, IterationComparison, MeanDelta } from '../schemas/analysis.js';
import type { AnalysisDocument, AnalysisPrediction } from './types.js';

export type { DocumentDelta, ExcludedDocument, FieldDelta, IterationComparison, MeanDelta };

/** Default threshold of {@link IterationComparer}. */
export const DEFAULT_COMPARE_THRESHOLD = 0.01;

const MOVED_FIELDS = 10;

/**
 * Compares two iterations of one evaluation document by document, fed in the evaluation's order (page by page), so
 * memory grows with the number of fields and the per-document figures only (for the paired intervals: one number per
 * document and field scored on both sides). Compared documents are the labeled ones that finished in both
 * iterations, a failed one counting 0 (its similarity and every field of its annotation); the mean and every field
 * get a paired delta with a seeded 95% bootstrap interval (docs/spec/analysis.md).
 *
 * @example
 * const c = new IterationComparer({ jsonSchema: evaluation.json_schema });
 * c.add(document, basePrediction, headPrediction); // for every document
 * const result = c.result(); // result.fields[0] is the field that regressed most
 */
export class IterationComparer {
  private readonly threshold: number;
  private readonly base: FieldSummaryBuilder;
  private readonly head: FieldSummaryBuilder;
  private readonly documents: DocumentDelta[] = [];
  private readonly excluded: ExcludedDocument[] = [];
  private readonly cost = { base: 0, head: 0, baseKnown: false, headKnown: false };
  private readonly failures = { base: 0, head: 0 };
  private readonly counts: { base: AnalysisCounts; head: AnalysisCounts } = {
    base: { succeeded: 0, failed: 0, unlabeled: 0, pending: 0 },
    head: { succeeded: 0, failed: 0, unlabeled: 0, pending: 0 },
  };
  /** Per field: head − base in each compared document that scored it on both sides. */
  private readonly fieldDifferences = new Map<string, number[]>();

  constructor(options: { threshold?: number; jsonSchema?: Parameters<typeof schemaBuilder>[0] } = {}) {
    this.threshold = options.threshold ?? DEFAULT_COMPARE_THRESHOLD;
    this.base = schemaBuilder(options.jsonSchema);
    this.head = schemaBuilder(options.jsonSchema);
  }

  add(document: AnalysisDocument, base: AnalysisPrediction, head: AnalysisPrediction): void {
    const labeled = isLabeled(document.annotation);
    this.count(base, 'base', labeled);
    this.count(head, 'head', labeled);
    if (!labeled || base.status === 'pending' || head.status === 'pending') {
      const status = (p: AnalysisPrediction) => (labeled ? p.status : 'unlabeled');
      this.excluded.push({ document_id: document.id, filename: document.filename, base_status: status(base), head_status: status(head) });
      return;
    }
    const b = sideOf(document, base);
    const h = sideOf(document, head);
    this.base.addScores(b.fields);
    this.head.addScores(h.fields);
    const baseScores = new Map(b.fields.map((f) => [f.field, f.similarity]));
    for (const f of h.fields) {
      const before = baseScores.get(f.field);
      if (before === undefined || before === null || f.similarity === null) continue;
      let list = this.fieldDifferences.get(f.field);
      if (!list) this.fieldDifferences.set(f.field, (list = []));
      list.push(f.similarity - before);
    }
    this.documents.push({
      document_id: document.id,
      filename: document.filename,
      base_similarity: b.similarity,
      head_similarity: h.similarity,
      delta: h.similarity - b.similarity,
      base_aligned_similarity: b.aligned,
      head_aligned_similarity: h.aligned,
      aligned_delta: h.aligned - b.aligned,
    });
  }

  result(): IterationComparison {
    const base = indexFields(this.base.result().fields);
    const head = indexFields(this.head.result().fields);
    const fields: FieldDelta[] = [];
    for (const name of new Set([...base.keys(), ...head.keys()])) {
      const b = base.get(name);
      const h = head.get(name);
      const baseMean = b?.mean_similarity ?? null;
      const headMean = h?.mean_similarity ?? null;
      const baseAligned = b?.aligned_mean_similarity ?? null;
      const headAligned = h?.aligned_mean_similarity ?? null;
      fields.push({
        field: name,
        documents: Math.min(b?.documents ?? 0, h?.documents ?? 0),
        base_mean: baseMean,
        head_mean: headMean,
        delta: difference(baseMean, headMean),
        base_aligned_mean: baseAligned,
        head_aligned_mean: headAligned,
        aligned_delta: difference(baseAligned, headAligned),
        paired: pairedBootstrap(this.fieldDifferences.get(name) ?? []),
      });
    }
    fields.sort((x, y) => byNullableAscending(x.delta, y.delta) || compareText(x.field, y.field));
    const moved = fields
      .filter((f) => f.delta !== null && f.delta !== 0)
      .sort((x, y) => Math.abs(y.delta!) - Math.abs(x.delta!) || compareText(x.field, y.field))
      .slice(0, MOVED_FIELDS);
    const n = this.documents.length;
    const sums = this.documents.reduce(
      (acc, d) => ({
        base: acc.base + d.base_similarity,
        head: acc.head + d.head_similarity,
        baseAligned: acc.baseAligned + d.base_aligned_similarity,
        headAligned: acc.headAligned + d.head_aligned_similarity,
      }),
      { base: 0, head: 0, baseAligned: 0, headAligned: 0 },
    );
    const mean = (sum: number) => (n === 0 ? null : sum / n);
    return {
      threshold: this.threshold,
      compared_documents: n,
      base_counts: { ...this.counts.base },
      head_counts: { ...this.counts.head },
      mean_similarity: {
        ...meanDelta(mean(sums.base), mean(sums.head)),
        paired: pairedBootstrap(this.documents.map((d) => d.delta)),
      },
      aligned_mean_similarity: {
        ...meanDelta(mean(sums.baseAligned), mean(sums.headAligned)),
        paired: pairedBootstrap(this.documents.map((d) => d.aligned_delta)),
      },
      cost: meanDelta(this.cost.baseKnown ? this.cost.base : null, this.cost.headKnown ? this.cost.head : null),
      failures: meanDelta(this.failures.base, this.failures.head),
      fields,
      moved_fields: moved,
      documents: this.documents,
      regressed: this.documents.filter((d) => d.delta < -this.threshold).sort((x, y) => x.delta - y.delta),
      improved: this.documents.filter((d) => d.delta > this.threshold).sort((x, y) => y.delta - x.delta),
      excluded: this.excluded,
    };
  }

  private count(prediction: AnalysisPrediction, side: 'base' | 'head', labeled: boolean): void {
    if (labeled) this.counts[side][prediction.status] += 1;
    else this.counts[side].unlabeled += 1;
    if (labeled && prediction.status === 'failed') this.failures[side] += 1;
    if (prediction.status !== 'pending' && prediction.cost !== null) {
      this.cost[side] += prediction.cost;
      if (side === 'base') this.cost.baseKnown = true;
      else this.cost.headKnown = true;
    }
  }
}

/** One side of a compared document: a failed extraction counts 0 (its similarity and every annotated field). */
function sideOf(
  document: AnalysisDocument,
  prediction: Exclude<AnalysisPrediction, { status: 'pending' }>,
): { fields: DocumentFieldScore[]; similarity: number; aligned: number } {
  if (prediction.status === 'failed') return { fields: failedDocumentFields(document.annotation), similarity: 0, aligned: 0 };
  return {
    fields: documentFields(document.annotation, prediction.prediction, prediction.metrics),
    similarity: prediction.metrics.similarity,
    aligned: prediction.metrics.aligned_similarity,
  };
}

function schemaBuilder(jsonSchema?: ConstructorParameters<typeof FieldSummaryBuilder>[0]): FieldSummaryBuilder {
  return new FieldSummaryBuilder(jsonSchema);
}

function indexFields(fields: FieldStats[]): Map<string, FieldStats> {
  return new Map(fields.map((f) => [f.field, f]));
}

function difference(base: number | null, head: number | null): number | null {
  return base === null || head === null ? null : head - base;
}

function meanDelta(base: number | null, head: number | null): MeanDelta {
  return { base, head, delta: difference(base, head) };
}

function byNullableAscending(a: number | null, b: number | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return a - b;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
