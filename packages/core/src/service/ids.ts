import { nanoid } from 'nanoid';

/** Service-made ids (docs/spec/service.md): `eval_…`, `eval_iter_…`, `proc_…`. */
export const newEvaluationId = () => `eval_${nanoid()}`;
export const newIterationId = () => `eval_iter_${nanoid()}`;
export const newProcessorId = () => `proc_${nanoid()}`;
/** An annotation revision: cached metrics name the revision they describe. */
export const newRevision = () => nanoid(12);
