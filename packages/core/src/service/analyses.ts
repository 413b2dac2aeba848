import {
  csvHeader,
  csvLines,
  exportRows,
  FieldSummaryBuilder,
  IterationComparer,
  jsonLines,
  leaderboard,
  parseAnnotationsPaced,
  type AnalysisDocument,
  type AnalysisPrediction,
  type AnnotationRow,
} from '../analysis/index.js';
import { DocevalsError, notFound, validationError } from '../errors.js';
import type { JsonObject } from '../json/assert-json.js';
import { annotationValidator } from '../json-schema/annotation.js';
import { isLabeled } from '../metrics/index.js';
import { pacer } from '../time-slice.js';
import {
  compareInputSchema,
  documentDistancesInputSchema,
  exportInputSchema,
  importAnnotationsInputSchema,
  iterationFieldsInputSchema,
  leaderboardInputSchema,
  matrixInputSchema,
  MAX_IMPORT_ROWS,
  type CompareInput,
  type DocumentDistances,
  type DocumentDistancesInput,
  type EvaluationComparison,
  type ExportFormat,
  type ExportInput,
  type ImportAnnotationsInput,
  type ImportAnnotationsResult,
  type ImportRowResult,
  type IterationFields,
  type IterationFieldsInput,
  type Leaderboard,
  type LeaderboardInput,
  type Matrix,
  type MatrixInput,
} from '../schemas/index.js';
import type { DocumentRecord, EvaluationRecord, IterationRecord, PredictionRecord } from '../storage.js';
import { bindContext } from './bind-context.js';
import type { ServiceContext } from './context.js';
import { writeAnnotations } from './documents.js';
import { currentMetrics } from './metric-cache.js';
import { documentPages, loadIterations, predictionsFor, requireDocument, requireEvaluation, requireIteration } from './reads.js';
import { documentTally, knownCost, summaryOfTotals } from './render.js';
import { invalidRequest, parseInput } from './validate.js';
import { listMetadata, unknownCursor } from './lists.js';

/**
 * Documents of an import written per batch: one `putMany` of documents, then one of predictions per iteration.
 * 250 measured best of 100/250/500 (docs/benchmarks.md, annotation import).
 */
const IMPORT_BATCH = 250;

function analysisDocument(document: DocumentRecord): AnalysisDocument {
  return { id: document.id, filename: document.filename, annotation: document.annotation };
}

/** A stored prediction as the analyses read it; metrics recomputed when the annotation changed since. */
function analysisPrediction(document: DocumentRecord, prediction: PredictionRecord | null): AnalysisPrediction {
  if (!prediction) return { status: 'pending' };
  const metrics = currentMetrics(document, prediction);
  const cost = prediction.metadata?.api_cost ? prediction.totals.cost : null;
  if (prediction.status === 'succeeded') {
    const likelihoods = prediction.metadata?.likelihoods;
    return { status: 'succeeded', prediction: prediction.prediction, metrics, cost, likelihoods: isObject(likelihoods) ? likelihoods : null };
  }
  const error = typeof prediction.metadata?.error === 'string' ? prediction.metadata.error : null;
  return { status: 'failed', prediction: prediction.prediction, metrics, cost, error };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Labeled documents finished in the iteration: its failure-counting mean means something. */
function finished(summary: { metric_results: { counts: { succeeded: number; failed: number } } }): boolean {
  return summary.metric_results.counts.succeeded + summary.metric_results.counts.failed > 0;
}

/** The evaluation's documents page by page, each with its outcome in every iteration given (in that order). */
async function* outcomePages(
  ctx: ServiceContext,
  evaluation: EvaluationRecord,
  iterations: readonly IterationRecord[],
): AsyncGenerator<Array<{ document: DocumentRecord; outcomes: AnalysisPrediction[] }>> {
  for await (const page of documentPages(ctx, evaluation.organization_id, evaluation.id)) {
    const perIteration = await Promise.all(
      iterations.map((iteration) => predictionsFor(ctx, evaluation.organization_id, iteration.id, page)),
    );
    yield page.map((document, i) => ({
      document,
      outcomes: perIteration.map((predictions) => analysisPrediction(document, predictions[i] ?? null)),
    }));
  }
}

/** An export: its file name, media type and the text in chunks (one page of documents each). */
export interface ExportStream {
  filename: string;
  content_type: string;
  chunks: AsyncIterable<string>;
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
};

export function analysisOperations(ctx: ServiceContext) {
  return bindContext(ctx, {
    /** Per-field summary of one iteration, worst field first (docs/spec/analysis.md). */
    fields: iterationFields,
    /** One document's distances in an iteration: 1 − similarity for every field of `similarities`, and overall. */
    distances,
    /** Compares two iterations of one evaluation (docs/spec/analysis.md). */
    compare,
    /**
     * One page of documents x iterations similarities (docs/spec/analysis.md, Matrix): one page of document records
     * and, per iteration, those documents' predictions read by key; no file and no prediction content leaves.
     *
     * @example
     * const { iterations, data, list_metadata } = await docevals.evals.matrix('org_1', { evaluation_id, limit: 1000 });
     */
    matrix,
    /** Completed iterations ranked (docs/spec/analysis.md): summaries only, two small reads per iteration. */
    leaderboard: leaderboardOf,
    /**
     * One iteration as CSV or JSON Lines, one row per document × leaf field, produced a page of documents at a time
     * (docs/spec/analysis.md). The iteration is checked before the first chunk, so errors come before any output.
     */
    export: exportIteration,
    /**
     * Applies an annotations file (JSONL or CSV): every row is checked first (a refused row is reported with its
     * issues and changes nothing), then the documents are written in batches of {@link IMPORT_BATCH} (one
     * compare-and-set commit each), each batch followed by its predictions refreshed in every iteration, one batch
     * per iteration (docs/spec/analysis.md). Rows naming one document twice: the last one is written. `dry_run`: the
     * rows checked and answered as they would be, nothing written (a preview).
     */
    importAnnotations,
  });
}

async function iterationFields(ctx: ServiceContext, organizationId: string, raw: IterationFieldsInput): Promise<IterationFields> {
  const input = parseInput(iterationFieldsInputSchema, raw);
  const { evaluation, iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
  const builder = new FieldSummaryBuilder(iteration.json_schema);
  for await (const page of outcomePages(ctx, evaluation, [iteration])) {
    for (const { document, outcomes } of page) builder.add(analysisDocument(document), outcomes[0]!);
  }
  return { iteration_id: iteration.id, ...builder.result() };
}

async function distances(ctx: ServiceContext, organizationId: string, raw: DocumentDistancesInput): Promise<DocumentDistances> {
  const input = parseInput(documentDistancesInputSchema, raw);
  const { iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
  const { value: document } = await requireDocument(ctx, organizationId, input.evaluation_id, input.document_id);
  const prediction = await ctx.storage.predictions.get(organizationId, iteration.id, document.id);
  if (!prediction) {
    throw new DocevalsError(
      'not_found',
      `The iteration "${iteration.id}" has no prediction for the document "${input.document_id}" yet: re-run it ` +
        'for that document (POST .../process with only_missing: true).',
    );
  }
  const metrics = currentMetrics(document, prediction.value);
  return { distances: distanceTree(metrics.similarities), mean_distance: 1 - metrics.similarity, metric_type: 'levenshtein' };
}

async function compare(ctx: ServiceContext, organizationId: string, raw: CompareInput): Promise<EvaluationComparison> {
  const input = parseInput(compareInputSchema, raw);
  const { evaluation, iteration: base } = await requireIteration(ctx, organizationId, input.evaluation_id, input.base);
  const { iteration: head } = await requireIteration(ctx, organizationId, input.evaluation_id, input.head);
  const comparer = new IterationComparer({ threshold: input.threshold, jsonSchema: head.json_schema });
  for await (const page of outcomePages(ctx, evaluation, [base, head])) {
    for (const { document, outcomes } of page) comparer.add(analysisDocument(document), outcomes[0]!, outcomes[1]!);
  }
  return { base_iteration_id: base.id, head_iteration_id: head.id, ...comparer.result() };
}

async function matrix(ctx: ServiceContext, organizationId: string, raw: MatrixInput): Promise<Matrix> {
  const input = parseInput(matrixInputSchema, raw);
  const { value: evaluation } = await requireEvaluation(ctx, organizationId, input.evaluation_id);
  const [iterations, page] = await Promise.all([
    loadIterations(ctx, evaluation),
    ctx.storage.documents.list(organizationId, evaluation.id, { limit: input.limit, ...(input.after ? { after: input.after } : {}) }),
  ]);
  if (!page) throw unknownCursor(input);
  const perIteration = await Promise.all(iterations.map((it) => predictionsFor(ctx, organizationId, it.id, page.items)));
  return {
    iterations: iterations.map((it) => ({ id: it.id, name: it.name ?? null, model: it.inference_settings.model, status: it.status })),
    data: page.items.map((document, i) => {
      const outcomes = perIteration.map((predictions) => analysisPrediction(document, predictions[i] ?? null));
      return {
        document_id: document.id,
        filename: document.filename,
        similarities: outcomes.map((o) => (o.status === 'succeeded' ? o.metrics.similarity : null)),
        statuses: outcomes.map((o) => o.status),
        labeled: isLabeled(document.annotation),
      };
    }),
    list_metadata: listMetadata(page, input),
  };
}

async function leaderboardOf(ctx: ServiceContext, organizationId: string, raw: LeaderboardInput): Promise<Leaderboard> {
  const input = parseInput(leaderboardInputSchema, raw);
  const { value: evaluation } = await requireEvaluation(ctx, organizationId, input.evaluation_id);
  const tally = await documentTally(ctx, evaluation);
  const summaries = await Promise.all(
    (await loadIterations(ctx, evaluation)).map(async (it) => {
      const totals = await ctx.storage.predictions.totals(organizationId, it.id);
      return { ...summaryOfTotals(it, totals, tally), cost: knownCost(totals) };
    }),
  );
  return leaderboard(
    summaries.map((s) => ({
      id: s.id,
      name: s.name,
      model: s.inference_settings.model,
      inference_settings: s.inference_settings,
      status: s.status,
      created_at: s.created_at,
      started_at: s.started_at,
      finished_at: s.finished_at,
      mean_similarity: finished(s) ? s.metric_results.mean_similarity : null,
      aligned_mean_similarity: finished(s) ? s.metric_results.aligned_mean_similarity : null,
      succeeded_mean_similarity: s.metric_results.succeeded_mean_similarity,
      coverage: s.metric_results.coverage,
      succeeded: s.metric_results.counts.succeeded,
      failed: s.metric_results.counts.failed,
      pending: s.metric_results.counts.pending,
      unlabeled: s.metric_results.counts.unlabeled,
      partial: s.metric_results.partial,
      cost: s.cost,
    })),
    { sort: input.sort, ...(input.order ? { order: input.order } : {}) },
  );
}

async function exportIteration(ctx: ServiceContext, organizationId: string, raw: ExportInput): Promise<ExportStream> {
  const input = parseInput(exportInputSchema, raw);
  const { evaluation, iteration } = await requireIteration(ctx, organizationId, input.evaluation_id, input.iteration_id);
  const format = input.format;
  const rawCells = input.raw === true || input.raw === 'true';
  const pace = pacer();
  async function* chunks(): AsyncGenerator<string> {
    // One of the organization's heavy-read slots while it streams (given back when it ends or is cancelled).
    const release = await ctx.heavyReads.acquire(organizationId);
    try {
      if (format === 'csv') yield csvHeader();
      for await (const page of outcomePages(ctx, evaluation, [iteration])) {
        const rows = page.flatMap(({ document, outcomes }) => exportRows(analysisDocument(document), outcomes[0]!));
        const text = format === 'csv' ? csvLines(rows, { raw: rawCells }) : jsonLines(rows);
        await pace();
        if (text.length > 0) yield text;
      }
    } finally {
      release();
    }
  }
  return { filename: `${iteration.id}.${format}`, content_type: CONTENT_TYPES[format], chunks: chunks() };
}

async function importAnnotations(ctx: ServiceContext, organizationId: string, raw: ImportAnnotationsInput): Promise<ImportAnnotationsResult> {
  const input = parseInput(importAnnotationsInputSchema, raw);
  const { value: evaluation } = await requireEvaluation(ctx, organizationId, input.evaluation_id);
  const pace = pacer();
  const { rows, over } = await parseAnnotationsPaced(input.content, input.format, evaluation.json_schema, {
    maxRows: MAX_IMPORT_ROWS,
    pace,
  });
  if (over !== null) throw invalidRequest([{ path: 'content', message: over }]);
  // A preview reads every document's id (the writes that would find a missing one are skipped).
  const byFilename = input.dry_run || rows.some((r) => r.filename !== undefined) ? await filenameIndex(ctx, evaluation) : new Map<string, string[]>();
  // Every row is checked before the first write (one compiled validator for all of them, yielding between rows).
  const check = input.validate === false ? null : annotationValidator(evaluation.json_schema);
  const results: ImportRowResult[] = [];
  for (const row of rows) {
    results.push(checkRow(row));
    await pace();
  }
  if (input.dry_run) {
    const known = new Set([...byFilename.values()].flat());
    const previewed = results.map((result, i) =>
      result.status === 'updated' && !known.has(result.document_id!) ? refusedBy(rows[i]!, result, notFound('document', result.document_id!)) : result,
    );
    return { dry_run: true, ...counted(previewed) };
  }
  // The last valid row of each document is the one written.
  const edits = new Map<string, { document_id: string; annotation: JsonObject }>();
  rows.forEach((row, i) => {
    const result = results[i]!;
    if (result.status === 'updated') edits.set(result.document_id!, { document_id: result.document_id!, annotation: row.annotation! });
  });
  const missing = new Set<string>();
  const batches = [...edits.values()];
  for (let start = 0; start < batches.length; start += IMPORT_BATCH) {
    for (const id of await writeAnnotations(ctx, organizationId, evaluation.id, batches.slice(start, start + IMPORT_BATCH))) missing.add(id);
    await pace();
  }
  const final = results.map((result, i) =>
    result.status === 'updated' && missing.has(result.document_id!) ? refusedBy(rows[i]!, result, notFound('document', result.document_id!)) : result,
  );
  return { dry_run: false, ...counted(final) };

  /** A row as it will be reported if its document exists: `updated`, or `refused` with its issues. */
  function checkRow(row: AnnotationRow): ImportRowResult {
    const base = { row: row.row, document_id: row.document_id ?? null, filename: row.filename ?? null };
    if (!row.annotation) return { ...base, status: 'refused', issues: row.issues };
    let documentId = row.document_id;
    if (documentId === undefined) {
      const ids = byFilename.get(row.filename!) ?? [];
      if (ids.length !== 1) {
        const message = ids.length === 0 ? `no document named ${row.filename}` : `${ids.length} documents are named ${row.filename}: use document_id`;
        return { ...base, status: 'refused', issues: [{ path: `${row.row}.filename`, message }] };
      }
      documentId = ids[0]!;
    }
    const resolved = { ...base, document_id: documentId };
    const issues = check ? check(row.annotation, 'annotation') : [];
    if (issues.length > 0) return refusedBy(row, resolved, validationError('the annotation does not match the schema', issues));
    return { ...resolved, status: 'updated', issues: [] };
  }
}

/** An import's answer from its rows' results. */
function counted(rows: ImportRowResult[]): Omit<ImportAnnotationsResult, 'dry_run'> {
  return { updated: rows.filter((r) => r.status === 'updated').length, refused: rows.filter((r) => r.status === 'refused').length, rows };
}

/** A row refused for `error`: its issues, with paths under the row's number. */
function refusedBy(row: AnnotationRow, result: Pick<ImportRowResult, 'row' | 'document_id' | 'filename'>, error: DocevalsError): ImportRowResult {
  const issues = error.issues?.length ? error.issues : [{ path: '', message: error.message }];
  return {
    row: result.row,
    document_id: result.document_id,
    filename: result.filename,
    status: 'refused',
    issues: issues.map((i) => ({ path: `${row.row}.${i.path}`.replace(/\.$/, ''), message: i.message })),
  };
}

async function filenameIndex(ctx: ServiceContext, evaluation: EvaluationRecord): Promise<Map<string, string[]>> {
  const index = new Map<string, string[]>();
  for await (const page of documentPages(ctx, evaluation.organization_id, evaluation.id)) {
    for (const document of page) index.set(document.filename, [...(index.get(document.filename) ?? []), document.id]);
  }
  return index;
}

/** 1 − similarity at every number of a similarity tree (objects and arrays kept, anything else as it is). */
function distanceTree(similarities: Record<string, unknown>): Record<string, unknown> {
  const flip = (value: unknown): unknown => {
    if (typeof value === 'number') return 1 - value;
    if (Array.isArray(value)) return value.map(flip);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, flip(item)]));
    }
    return value;
  };
  return flip(similarities) as Record<string, unknown>;
}

