import { documentOperations } from './documents.js';
import { evaluationOperations } from './evaluations.js';
import { iterationOperations } from './iterations.js';
import { processorOperations } from './processors.js';
import { secretOperations } from './secrets.js';

export type { Operation, ProcedureKind, RestRoute, RestTag } from './define.js';

/**
 * Every operation of the API (docs/spec/interface.md section 4, docs/spec/service.md), keyed by a stable name that is
 * also the tRPC procedure's path: one declaration each (input, output, service call, REST route and its text), in
 * the files of this folder. `@docevals/rest` derives its routes and OpenAPI document from the rows' `rest`,
 * `@docevals/trpc` its procedures from the rows themselves.
 *
 * Where REST answers one of two shapes by a field of the input (`view=summary`, `"background": true`), the table has
 * one operation per shape (`get` / `getSummary`, `create` / `createInBackground`: one output type each, as typed
 * clients need) and one `…Any` operation that takes the field and answers either (REST's).
 *
 * @example
 * import { createDocevals, operations } from '@docevals/core';
 * const docevals = createDocevals({ storage });
 * const { input, call } = operations['evals.get'];
 * const evaluation = await call(docevals, 'org_1', input.parse({ evaluation_id: 'eval_1' }));
 */
export const operations = {
  ...evaluationOperations,
  ...documentOperations,
  ...iterationOperations,
  ...processorOperations,
  ...secretOperations,
} as const;

/** The name of an operation of {@link operations}. */
export type OperationName = keyof typeof operations;
