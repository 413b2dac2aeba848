import type {
  CreateEvaluationInput,
  Deleted,
  Evaluation,
  EvaluationOverview,
  EvaluationSummary,
  Iteration,
  IterationSummary,
  ListResult,
  ModelList,
} from '@docevals/core';
import type { inferProcedureInput, inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { describe, expectTypeOf, it } from 'vitest';
import type { DocevalsRouter } from '../src/index.js';

// The router is built from the core's operation table; a client (and the web app) infers its types from
// `DocevalsRouter`. These checks run at compile time (`pnpm typecheck`): a procedure whose input or output widened
// (to `unknown`, to a union, to `any`) or whose kind changed fails them.
type Inputs = inferRouterInputs<DocevalsRouter>;
type Outputs = inferRouterOutputs<DocevalsRouter>;
type Procedures = DocevalsRouter['_def']['record'];
type Output<P extends { _def: { $types: { output: unknown } } }> = P['_def']['$types']['output'];

describe('DocevalsRouter types (from the operation table)', () => {
  it('keeps one precise output type per procedure', () => {
    // Before tRPC's JSON serialization of types: the core's own types.
    expectTypeOf<Output<Procedures['evals']['create']>>().toEqualTypeOf<Evaluation>();
    expectTypeOf<Output<Procedures['evals']['list']>>().toEqualTypeOf<ListResult<EvaluationSummary>>();
    expectTypeOf<Output<Procedures['evals']['getSummary']>>().toEqualTypeOf<EvaluationOverview>();
    expectTypeOf<Output<Procedures['evals']['delete']>>().toEqualTypeOf<Deleted>();
    expectTypeOf<Output<Procedures['evals']['iterations']['get']>>().toEqualTypeOf<Iteration>();
    expectTypeOf<Output<Procedures['evals']['iterations']['getSummary']>>().toEqualTypeOf<IterationSummary>();
    expectTypeOf<Output<Procedures['evals']['iterations']['list']>>().toEqualTypeOf<{ data: Iteration[] }>();
    expectTypeOf<Output<Procedures['evals']['iterations']['createInBackground']>>().toEqualTypeOf<IterationSummary>();
    expectTypeOf<Output<Procedures['models']['list']>>().toEqualTypeOf<ModelList>();
    // What a client sees: still one shape per procedure, never `any`.
    expectTypeOf<Outputs['evals']['iterations']['get']>().not.toBeAny();
    expectTypeOf<Outputs['evals']['iterations']['getSummary']>().not.toHaveProperty('predictions');
    expectTypeOf<Outputs['evals']['getSummary']>().not.toHaveProperty('documents');
    expectTypeOf<Outputs['evals']['get']>().toHaveProperty('documents');
    expectTypeOf<Outputs['evals']['iterations']['get']>().toHaveProperty('predictions');
  });

  it("takes the core's input types, with the view and background fields fixed by the procedure", () => {
    expectTypeOf<Inputs['evals']['create']>().toEqualTypeOf<CreateEvaluationInput>();
    expectTypeOf<Inputs['evals']['iterations']['getSummary']>().toEqualTypeOf<{ evaluation_id: string; iteration_id: string }>();
    expectTypeOf<Inputs['evals']['getSummary']>().toEqualTypeOf<{ evaluation_id: string }>();
    expectTypeOf<Inputs['evals']['iterations']['predictions']>().toHaveProperty('document_ids');
    expectTypeOf<Inputs['evals']['iterations']['list']>().not.toHaveProperty('view');
    expectTypeOf<Inputs['evals']['iterations']['create']>().not.toHaveProperty('background');
    expectTypeOf<undefined>().toExtend<Inputs['evals']['list']>();
    expectTypeOf<inferProcedureInput<Procedures['models']['list']>>().toEqualTypeOf<void>();
    expectTypeOf<Inputs['evals']['iterations']['events']>().toHaveProperty('lastEventId');
  });

  it('keeps queries, mutations and the subscription', () => {
    expectTypeOf<Procedures['evals']['get']['_def']['type']>().toEqualTypeOf<'query'>();
    expectTypeOf<Procedures['evals']['create']['_def']['type']>().toEqualTypeOf<'mutation'>();
    expectTypeOf<Procedures['evals']['iterations']['export']['_def']['type']>().toEqualTypeOf<'query'>();
    expectTypeOf<Procedures['evals']['iterations']['events']['_def']['type']>().toEqualTypeOf<'subscription'>();
  });
});
