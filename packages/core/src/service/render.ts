import pLimit from 'p-limit';
import { isLabeled, outcomeFigures, type OutcomeSums } from '../metrics/index.js';
import type {
  Document,
  DocumentSummary,
  Evaluation,
  EvaluationOverview,
  EvaluationSummary,
  ItemMetric,
  Iteration,
  IterationSummary,
  Prediction,
  PredictionWithMetrics,
} from '../schemas/index.js';
import type { ChildTotals, DocumentRecord, EvaluationRecord, IterationRecord, PredictionRecord, StoredFile } from '../storage.js';
import type { ServiceContext } from './context.js';
import { toDataUrl } from './data-url.js';
import { documentContentPath } from '../schemas/documents.js';
import { currentItemMetric, EMPTY_PREDICTION } from './metric-cache.js';
import { FILE_READ_CONCURRENCY, loadIterations, missingFile, predictionsFor, READ_PAGE, readAllDocuments } from './reads.js';
import { renderDefaultSettings } from './settings.js';

export function documentSummary(document: DocumentRecord): DocumentSummary {
  return {
    id: document.id,
    filename: document.filename,
    mime_type: document.mime_type,
    size: document.size,
    mime_data: { filename: document.filename, url: documentContentPath(document.parent_id, document.id) },
  };
}

/** Documents with their content as data URLs, at most {@link FILE_READ_CONCURRENCY} files read at once. */
export async function renderDocuments(
  ctx: ServiceContext,
  organizationId: string,
  documents: readonly DocumentRecord[],
  /** Contents already in hand (a create's request), by file id: not read again. */
  known: ReadonlyMap<string, StoredFile> = new Map(),
): Promise<Document[]> {
  const limit = pLimit(FILE_READ_CONCURRENCY);
  return Promise.all(
    documents.map((document) =>
      limit(async () => {
        const file = known.get(document.id) ?? (await ctx.storage.files.get(organizationId, document.id));
        if (!file) throw missingFile(ctx, document.id);
        return {
          id: document.id,
          mime_data: { filename: document.filename, url: toDataUrl(file) },
          annotation: document.annotation,
          annotation_metadata: document.annotation_metadata,
        };
      }),
    ),
  );
}

/**
 * One document's prediction as answered (interface.md 2.5), `null` = none (pending there). Built as the wire shape
 * directly, keys in the answer's order: an answer of 50,000 outcomes made no intermediate object per outcome.
 */
function predictionOf(document: DocumentRecord, prediction: PredictionRecord | null): Prediction {
  const out: Prediction = { document_id: document.id, prediction: prediction?.prediction ?? EMPTY_PREDICTION, metadata: prediction?.metadata ?? null };
  if (typeof prediction?.schema_valid === 'boolean') out.schema_valid = prediction.schema_valid;
  if (prediction?.schema_issues) out.schema_issues = prediction.schema_issues;
  return out;
}

/** One document's outcome in an iteration: its prediction, status and ItemMetric; `null` = no prediction. */
function outcome(document: DocumentRecord, prediction: PredictionRecord | null): PredictionWithMetrics {
  const out = predictionOf(document, prediction) as PredictionWithMetrics;
  out.status = prediction?.status ?? 'pending';
  out.metrics = currentItemMetric(document, prediction);
  return out;
}

/**
 * Calls `visit` with each document (in order) and its prediction in the iteration (`null` = none): from `known`
 * when given, else read {@link READ_PAGE} at a time.
 */
async function eachPrediction(
  ctx: ServiceContext,
  iteration: IterationRecord,
  documents: readonly DocumentRecord[],
  known: ReadonlyMap<string, PredictionRecord> | undefined,
  visit: (document: DocumentRecord, prediction: PredictionRecord | null) => void,
): Promise<void> {
  if (known) {
    for (const document of documents) visit(document, known.get(document.id) ?? null);
    return;
  }
  for (let start = 0; start < documents.length; start += READ_PAGE) {
    const page = documents.slice(start, start + READ_PAGE);
    const predictions = await predictionsFor(ctx, iteration.organization_id, iteration.id, page);
    page.forEach((document, i) => visit(document, predictions[i]!));
  }
}

/** Outcomes of the iteration for the documents given, reading predictions {@link READ_PAGE} at a time. */
async function outcomes(ctx: ServiceContext, iteration: IterationRecord, documents: readonly DocumentRecord[]): Promise<PredictionWithMetrics[]> {
  const out: PredictionWithMetrics[] = [];
  await eachPrediction(ctx, iteration, documents, undefined, (document, prediction) => out.push(outcome(document, prediction)));
  return out;
}

/**
 * The interface's Iteration (2.5): every prediction and ItemMetric, in document order, built page by page. Means
 * are over the documents whose extraction succeeded (docs/spec/service.md, Iterations), by the metrics module.
 */
export async function renderIteration(
  ctx: ServiceContext,
  iteration: IterationRecord,
  documents: readonly DocumentRecord[],
  /** Every prediction of the iteration, when a create has just written them: not read back. */
  known?: ReadonlyMap<string, PredictionRecord>,
): Promise<Iteration> {
  const predictions: Iteration['predictions'] = [];
  const items: ItemMetric[] = [];
  const sums: OutcomeSums = { ...NO_SUMS, documents: documents.length, checked: 0, schema_valid: 0, running: isRunning(iteration) };
  let succeeded = 0;
  let failed = 0;
  const [, totals] = await Promise.all([
    eachPrediction(ctx, iteration, documents, known, (document, record) => {
      const prediction = predictionOf(document, record);
      const metrics = currentItemMetric(document, record);
      const status = record?.status ?? 'pending';
      predictions.push(prediction);
      items.push(metrics);
      if (status === 'succeeded') succeeded += 1;
      else if (status === 'failed') failed += 1;
      addOutcome(sums, isLabeled(document.annotation), status, metrics, prediction.schema_valid ?? null);
    }),
    ctx.storage.predictions.totals(iteration.organization_id, iteration.id),
  ]);
  const sum = (key: string) => totals.sums[key] ?? 0;
  return {
    id: iteration.id,
    updated_at: iteration.updated_at,
    inference_settings: iteration.inference_settings,
    json_schema: iteration.json_schema,
    predictions,
    metric_results: { item_metrics: items, ...outcomeFigures(sums), metric_type: 'levenshtein' },
    schema_data_id: iteration.schema_data_id,
    schema_id: iteration.schema_id,
    status: iteration.status,
    progress: { total: documents.length, succeeded, failed, pending: documents.length - succeeded - failed },
    started_at: iteration.started_at,
    finished_at: iteration.finished_at,
    error: iteration.error,
    usage: { input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens'), cost: sum('cost') },
    ...labelsOf(iteration),
  };
}

/** The iteration's labels as answered: `null` / `[]` where none were given (older records have none). */
export function labelsOf(iteration: IterationRecord): { name: string | null; description: string | null; tags: string[] } {
  return { name: iteration.name ?? null, description: iteration.description ?? null, tags: iteration.tags ?? [] };
}

/**
 * `?view=summary`: the iteration's settings, status, progress, usage and means from its running totals: two small
 * reads whatever the number of documents.
 */
export async function renderIterationSummary(
  ctx: ServiceContext,
  iteration: IterationRecord,
  documentTally: DocumentTally | Promise<DocumentTally>,
): Promise<IterationSummary> {
  const [totals, tally] = await Promise.all([ctx.storage.predictions.totals(iteration.organization_id, iteration.id), documentTally]);
  return summaryOfTotals(iteration, totals, tally);
}

const NO_SUMS: OutcomeSums = { documents: 0, unlabeled: 0, succeeded: 0, failed: 0, similarity: 0, aligned_similarity: 0 };

/** Queued or running: more outcomes may come, so the figures are partial. */
function isRunning(iteration: IterationRecord): boolean {
  return iteration.status === 'queued' || iteration.status === 'running';
}

/** Adds one document's outcome into `sums` (docs/spec/metrics.md section 5). */
function addOutcome(
  sums: OutcomeSums,
  labeled: boolean,
  status: 'succeeded' | 'failed' | 'pending',
  metrics: { similarity: number; aligned_similarity: number },
  schemaValid: boolean | null,
): void {
  if (status === 'succeeded') {
    sums.checked = (sums.checked ?? 0) + 1;
    if (schemaValid !== false) sums.schema_valid = (sums.schema_valid ?? 0) + 1;
  }
  if (!labeled) {
    sums.unlabeled += 1;
    return;
  }
  if (status === 'succeeded') {
    sums.succeeded += 1;
    sums.similarity += metrics.similarity;
    sums.aligned_similarity += metrics.aligned_similarity;
  } else if (status === 'failed') {
    sums.failed += 1;
  }
}

/** What an iteration's summary needs of its evaluation's documents: how many, and how many have no ground truth. */
export interface DocumentTally {
  count: number;
  unlabeled: number;
}

/** The documents' tally from their collection's totals. */
export function tallyOf(totals: ChildTotals): DocumentTally {
  return { count: totals.count, unlabeled: Math.round(totals.sums['unlabeled'] ?? 0) };
}

/** How many documents an evaluation holds now, and how many of them are unlabeled. */
export async function documentTally(ctx: ServiceContext, evaluation: Pick<EvaluationRecord, 'organization_id' | 'id'>): Promise<DocumentTally> {
  return tallyOf(await ctx.storage.documents.totals(evaluation.organization_id, evaluation.id));
}

/**
 * The iteration's summary cost: the summed api cost, null when no prediction carried one (an all-free run is 0,
 * not unknown). Totals written before `priced` existed count as priced when their cost is not 0.
 */
export function knownCost(totals: ChildTotals): number | null {
  const sum = (key: string) => totals.sums[key] ?? 0;
  return sum('priced') > 0 || sum('cost') !== 0 ? sum('cost') : null;
}

/** {@link renderIterationSummary} from totals already read. */
export function summaryOfTotals(iteration: IterationRecord, totals: ChildTotals, tally: DocumentTally): IterationSummary {
  const sum = (key: string) => totals.sums[key] ?? 0;
  const total = tally.count;
  const succeeded = Math.round(sum('succeeded'));
  const failed = Math.round(sum('failed'));
  const sums: OutcomeSums = {
    documents: total,
    unlabeled: tally.unlabeled,
    succeeded: Math.round(sum('succeeded') - sum('unlabeled_succeeded')),
    failed: Math.round(sum('failed') - sum('unlabeled_failed')),
    similarity: sum('similarity') - sum('unlabeled_similarity'),
    aligned_similarity: sum('aligned_similarity') - sum('unlabeled_aligned_similarity'),
    checked: succeeded,
    schema_valid: succeeded - Math.round(sum('schema_invalid')),
    running: isRunning(iteration),
  };
  return {
    id: iteration.id,
    updated_at: iteration.updated_at,
    created_at: iteration.created_at,
    inference_settings: iteration.inference_settings,
    json_schema: iteration.json_schema,
    schema_data_id: iteration.schema_data_id,
    schema_id: iteration.schema_id,
    status: iteration.status,
    started_at: iteration.started_at,
    finished_at: iteration.finished_at,
    error: iteration.error,
    progress: { total, succeeded, failed, pending: Math.max(0, total - succeeded - failed) },
    usage: { input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens'), cost: sum('cost') },
    metric_results: { ...outcomeFigures(sums), metric_type: 'levenshtein' },
    ...labelsOf(iteration),
  };
}

/** How many documents an evaluation holds now (the documents' own count, not the reservation counter). */
export async function documentCount(ctx: ServiceContext, evaluation: EvaluationRecord): Promise<number> {
  return (await ctx.storage.documents.totals(evaluation.organization_id, evaluation.id)).count;
}

/** A page of the iteration's outcomes for the documents given (one page of the evaluation's documents). */
export async function renderPredictionPage(
  ctx: ServiceContext,
  iteration: IterationRecord,
  documents: readonly DocumentRecord[],
): Promise<PredictionWithMetrics[]> {
  return outcomes(ctx, iteration, documents);
}

/** The whole evaluation (interface.md 2.1). `inHand`: records and contents a create just wrote, not read back. */
export async function renderEvaluation(
  ctx: ServiceContext,
  evaluation: EvaluationRecord,
  inHand?: {
    documents: DocumentRecord[];
    iterations: IterationRecord[];
    contents: ReadonlyMap<string, StoredFile>;
    /** By iteration id: every prediction written with it. */
    predictions: ReadonlyMap<string, ReadonlyMap<string, PredictionRecord>>;
  },
): Promise<Evaluation> {
  const [records, iterations] = inHand
    ? [inHand.documents, inHand.iterations]
    : await Promise.all([readAllDocuments(ctx, evaluation.organization_id, evaluation.id), loadIterations(ctx, evaluation)]);
  const documents = await renderDocuments(ctx, evaluation.organization_id, records, inHand?.contents);
  const rendered: Iteration[] = [];
  for (const iteration of iterations) rendered.push(await renderIteration(ctx, iteration, records, inHand?.predictions.get(iteration.id)));
  return {
    id: evaluation.id,
    updated_at: evaluation.updated_at,
    name: evaluation.name,
    project_id: evaluation.project_id,
    documents,
    iterations: rendered,
    json_schema: evaluation.json_schema,
    default_inference_settings: renderDefaultSettings(evaluation.default_inference_settings),
    schema_data_id: evaluation.schema_data_id,
    schema_id: evaluation.schema_id,
  };
}

/**
 * `view: 'summary'`: the evaluation without its documents, iterations as summaries. Reads the record's iterations, the
 * documents' count and each iteration's totals: nothing that grows with the documents.
 */
export async function renderEvaluationOverview(ctx: ServiceContext, evaluation: EvaluationRecord): Promise<EvaluationOverview> {
  const [tally, iterations] = await Promise.all([documentTally(ctx, evaluation), loadIterations(ctx, evaluation)]);
  return {
    id: evaluation.id,
    updated_at: evaluation.updated_at,
    name: evaluation.name,
    project_id: evaluation.project_id,
    document_count: tally.count,
    unlabeled_count: tally.unlabeled,
    iterations: await Promise.all(iterations.map((it) => renderIterationSummary(ctx, it, tally))),
    json_schema: evaluation.json_schema,
    default_inference_settings: renderDefaultSettings(evaluation.default_inference_settings),
    schema_data_id: evaluation.schema_data_id,
    schema_id: evaluation.schema_id,
  };
}

/** An evaluation in a list: documents as summaries (whole with `expand`), iterations as summaries. */
export async function renderEvaluationSummary(
  ctx: ServiceContext,
  evaluation: EvaluationRecord,
  expandDocuments: boolean,
): Promise<EvaluationSummary> {
  const [records, iterations] = await Promise.all([
    readAllDocuments(ctx, evaluation.organization_id, evaluation.id),
    loadIterations(ctx, evaluation),
  ]);
  const documents = expandDocuments
    ? await renderDocuments(ctx, evaluation.organization_id, records)
    : records.map(documentSummary);
  const tally: DocumentTally = { count: records.length, unlabeled: records.filter((r) => !isLabeled(r.annotation)).length };
  return {
    id: evaluation.id,
    updated_at: evaluation.updated_at,
    name: evaluation.name,
    project_id: evaluation.project_id,
    document_count: records.length,
    unlabeled_count: tally.unlabeled,
    documents,
    iterations: await Promise.all(iterations.map((it) => renderIterationSummary(ctx, it, tally))),
    json_schema: evaluation.json_schema,
    default_inference_settings: renderDefaultSettings(evaluation.default_inference_settings),
    schema_data_id: evaluation.schema_data_id,
    schema_id: evaluation.schema_id,
  };
}
