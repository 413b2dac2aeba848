import { validationError } from '../errors.js';
import type { JsonObject } from '../json/assert-json.js';
import { LIMITS } from '../limits.js';
import { AlignmentBudget, AlignmentBudgetExceeded, alignNode } from './align-prediction.js';
import { TextContext } from './normalize-text.js';
import { scoreDocument, similarityOf, type SimilarityTree } from './section-walk.js';
import { EMPTY_OBJECT, OBJECT, prepareChecked, type ValueNode } from './value-node.js';

/** The six figures of one document (docs/spec/metrics.md sections 3 and 4). */
export interface DocumentComparison {
  similarity: number;
  flat_similarities: Record<string, number>;
  similarities: SimilarityTree;
  aligned_similarity: number;
  aligned_flat_similarities: Record<string, number>;
  aligned_similarities: SimilarityTree;
  /**
   * Present only when the alignment ran out of its work budget (docs/spec/metrics.md section 4): the aligned
   * figures are then the positional ones.
   */
  alignment?: 'positional_fallback';
  /**
   * Present only when the document's strings ran out of their Levenshtein work budget (docs/spec/metrics.md
   * section 4): string leaves compared past it score 1 when their normalized forms are equal, else 0.
   */
  levenshtein?: 'equality_fallback';
}

/**
 * Compares a prediction with its annotation: the section-3 figures as given, and the same after reordering the
 * prediction's arrays to best match the annotation's (section 4). Throws `validation_error` (with the path) unless
 * both are JSON objects nested at most 64 levels.
 *
 * @example
 * const r = compareDocuments({ total: 100, vendor: 'ACME' }, { total: 90 });
 * r.similarity;        // 0.45: total 0.9, vendor 0 (missing)
 * r.flat_similarities; // { total: 0.9, vendor: 0 }
 */
export function compareDocuments(annotation: JsonObject, prediction: JsonObject): DocumentComparison {
  return compareDocumentsAt(annotation, prediction, 'annotation', 'prediction');
}

/** {@link compareDocuments}, naming the two values `annotationPath` and `predictionPath` in errors. */
export function compareDocumentsAt(
  annotation: unknown,
  prediction: unknown,
  annotationPath: string,
  predictionPath: string,
): DocumentComparison {
  // One text context for both documents and both passes: each distinct string is normalized once, and all
  // Levenshtein work (plain pass, alignment's pairs, aligned pass) spends the one budget.
  const texts = new TextContext(LIMITS.maxTextWork);
  const a = prepareDocument(annotation, texts, annotationPath);
  const p = prepareDocument(prediction, texts, predictionPath);
  const plain = scoreDocument(a, p);
  let alignedP: ValueNode;
  let fallback = false;
  try {
    alignedP = alignNode(a, p, new AlignmentBudget(LIMITS.maxAlignmentWork));
  } catch (error) {
    if (!(error instanceof AlignmentBudgetExceeded)) throw error;
    alignedP = p;
    fallback = true;
  }
  // Nothing moved (or the budget ran out): the same figures, as a copy so that the two results share no object.
  const aligned = alignedP === p ? structuredClone(plain) : scoreDocument(a, alignedP);
  return {
    similarity: plain.similarity,
    flat_similarities: plain.flat_similarities,
    similarities: plain.similarities,
    aligned_similarity: aligned.similarity,
    aligned_flat_similarities: aligned.flat_similarities,
    aligned_similarities: aligned.similarities,
    ...(fallback ? { alignment: 'positional_fallback' as const } : {}),
    ...(texts.work.exhausted ? { levenshtein: 'equality_fallback' as const } : {}),
  };
}

/**
 * Only the section-3 `similarity` of two documents (no paths, no trees, no alignment): what choosing a consensus
 * pivot needs, at a fraction of the cost of {@link compareDocuments}.
 *
 * @example
 * documentSimilarity({ total: 100, vendor: 'ACME' }, { total: 90 }); // 0.45
 */
export function documentSimilarity(annotation: JsonObject, prediction: JsonObject): number {
  const texts = new TextContext();
  return similarityOf(prepareDocument(annotation, texts, 'annotation'), prepareDocument(prediction, texts, 'prediction'));
}

/** Prepares a document, throwing `validation_error` unless it is a JSON object within the nesting limit. */
export function prepareDocument(value: unknown, texts: TextContext, path: string): ValueNode {
  const node = prepareChecked(value, texts, path);
  if (node.kind !== OBJECT && node.kind !== EMPTY_OBJECT) {
    throw validationError(`"${path}": a JSON object is required.`, [{ path, message: 'not a JSON object' }]);
  }
  return node;
}
