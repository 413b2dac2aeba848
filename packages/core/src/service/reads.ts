import { DocevalsError, notFound } from '../errors.js';
import type { DocumentRecord, EvaluationRecord, IterationRecord, PredictionRecord, Versioned } from '../storage.js';
import type { ServiceContext } from './context.js';

/** How many child records one storage read asks for when a whole evaluation is walked. */
export const READ_PAGE = 500;

/** File contents read at once (renders with data URLs, file descriptions; docs/spec/service.md, Reads). */
export const FILE_READ_CONCURRENCY = 8;

/** The storage_error of a document whose file is missing (written once: renders and extraction both raise it). */
export function missingFile(ctx: ServiceContext, fileId: string): DocevalsError {
  return new DocevalsError('storage_error', `The ${ctx.storage.name} storage has no content for file ${fileId} that a document refers to.`);
}

/** Reads an evaluation of the organization or throws `not_found`. */
export async function requireEvaluation(ctx: ServiceContext, organizationId: string, id: string) {
  const found = await ctx.storage.evaluations.get(organizationId, id);
  if (!found) throw notFound('evaluation', id);
  return found;
}

/** Reads one document of an evaluation or throws `not_found`. */
export async function requireDocument(ctx: ServiceContext, organizationId: string, evaluationId: string, documentId: string) {
  const found = await ctx.storage.documents.get(organizationId, evaluationId, documentId);
  if (!found) throw notFound('document', documentId);
  return found;
}

export function requireIterationOf(evaluation: EvaluationRecord, iterationId: string): void {
  if (!evaluation.iteration_ids.includes(iterationId)) throw notFound('iteration', iterationId);
}

/** An evaluation and one of its iterations, or `not_found` for either. */
export async function requireIteration(ctx: ServiceContext, organizationId: string, evaluationId: string, iterationId: string) {
  // Both reads at once: the iteration only counts when the evaluation lists it.
  const [evaluation, iteration] = await Promise.all([
    requireEvaluation(ctx, organizationId, evaluationId),
    ctx.storage.iterations.get(organizationId, iterationId),
  ]);
  requireIterationOf(evaluation.value, iterationId);
  if (!iteration || iteration.value.evaluation_id !== evaluationId) throw notFound('iteration', iterationId);
  return { evaluation: evaluation.value, iteration: iteration.value };
}

/** Loads an evaluation's iteration records in its order (oldest first), skipping ids whose record is gone. */
export async function loadIterations(ctx: ServiceContext, evaluation: EvaluationRecord): Promise<IterationRecord[]> {
  if (evaluation.iteration_ids.length === 0) return [];
  const found = await ctx.storage.iterations.getMany(evaluation.organization_id, evaluation.iteration_ids);
  return found.filter((v): v is NonNullable<typeof v> => v !== null).map((v) => v.value);
}

/** The evaluation's documents page by page, in its document order: at most {@link READ_PAGE} records per read. */
export async function* documentPages(
  ctx: ServiceContext,
  organizationId: string,
  evaluationId: string,
): AsyncGenerator<DocumentRecord[]> {
  let after: string | undefined;
  for (;;) {
    const page = await ctx.storage.documents.list(organizationId, evaluationId, { limit: READ_PAGE, after });
    if (!page) {
      // The cursor's document was deleted between two pages: the walk cannot continue in order.
      throw new DocevalsError('conflict', 'The evaluation changed while it was read; read it again.');
    }
    if (page.items.length > 0) yield page.items;
    if (!page.has_more || page.items.length === 0) return;
    after = page.items[page.items.length - 1]!.id;
  }
}

/** Every document of an evaluation, in its order, read page by page. */
export async function readAllDocuments(ctx: ServiceContext, organizationId: string, evaluationId: string): Promise<DocumentRecord[]> {
  const out: DocumentRecord[] = [];
  for await (const page of documentPages(ctx, organizationId, evaluationId)) out.push(...page);
  return out;
}

/**
 * The evaluation's documents named by `ids`, in the order of `ids` (null for an id the evaluation does not hold), read
 * by key {@link READ_PAGE} at a time: never a walk of the whole evaluation.
 */
export async function readDocumentsById(
  ctx: ServiceContext,
  organizationId: string,
  evaluationId: string,
  ids: readonly string[],
): Promise<Array<DocumentRecord | null>> {
  const out: Array<DocumentRecord | null> = [];
  for (let start = 0; start < ids.length; start += READ_PAGE) {
    const found = await ctx.storage.documents.getMany(organizationId, evaluationId, ids.slice(start, start + READ_PAGE));
    for (const v of found) out.push(v?.value ?? null);
  }
  return out;
}

/** The predictions of one iteration for the documents given, in their order (null where it has none). */
export async function predictionsFor(
  ctx: ServiceContext,
  organizationId: string,
  iterationId: string,
  documents: readonly DocumentRecord[],
): Promise<Array<PredictionRecord | null>> {
  if (documents.length === 0) return [];
  const found: Array<Versioned<PredictionRecord> | null> = await ctx.storage.predictions.getMany(
    organizationId,
    iterationId,
    documents.map((d) => d.id),
  );
  return found.map((v) => v?.value ?? null);
}
