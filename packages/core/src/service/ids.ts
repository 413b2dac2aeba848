import { nanoid } from 'nanoid';

/** Service-made ids (docs/spec/service.md): `eval_…`, `eval_iter_…`, `proc_…`. */
export const newEvaluationId = () => `eval_${nanoid()}`;
export const newIterationId = () => `eval_iter_${nanoid()}`;
export const newProcessorId = () => `proc_${nanoid()}`;

/**
 * An annotation revision: cached metrics name the revision they describe. It reads `<incarnation>.<edit>`: the
 * incarnation is drawn when the document is added and kept by every annotation edit, so a prediction made for a
 * document that was deleted and added again (same file, same id) is told apart from one made before an edit.
 * nanoid's alphabet has no `.`; a revision without one (older stores) is its own incarnation.
 */
export const newRevision = (previous?: string) => `${previous ? incarnationOf(previous) : nanoid(10)}.${nanoid(8)}`;

/** The part of a revision that stays the same for the life of one document (see {@link newRevision}). */
export const incarnationOf = (revision: string) => {
  const dot = revision.indexOf('.');
  return dot < 0 ? revision : revision.slice(0, dot);
};
