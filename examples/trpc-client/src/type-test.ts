/**
 * Compile-time checks, run by `pnpm typecheck`: the client's inputs and outputs are typed from the core's zod
 * schemas through `DocevalsRouter`. Every `@ts-expect-error` marks a call the compiler must refuse; if one ever
 * compiles, the directive itself becomes an error. Nothing here is meant to run.
 */
import type { ErrorCode, Iteration } from '@docevals/core';
import type { DocevalsRouter } from '@docevals/trpc';
import type { TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs, TRPC_ERROR_CODE_KEY } from '@trpc/server';
import type { DocevalsClient } from './client.js';

type Inputs = inferRouterInputs<DocevalsRouter>;
type Outputs = inferRouterOutputs<DocevalsRouter>;

export async function clientTypes(client: DocevalsClient): Promise<void> {
  // Inputs: the REST body with the path parameters as snake_case fields; defaults make fields optional.
  const it = await client.evals.iterations.create.mutate({
    evaluation_id: 'eval_1',
    inference_settings: { model: 'local-rules', temperature: 0.2, modality: 'text' },
  });
  await client.evals.iterations.create.mutate({ evaluation_id: 'eval_1' });

  // Outputs: the core's response shapes.
  const mean: number = it.metric_results.mean_similarity;
  const metric: 'levenshtein' = it.metric_results.metric_type;
  const sameAsCore: Iteration = it;
  const processor = await client.processors.get.query({ processor_id: 'proc_1' });
  const object: 'processor' = processor.object;
  const page = await client.evals.list.query();
  const after: string | null = page.list_metadata.after;

  // @ts-expect-error temperature is a number
  await client.evals.iterations.create.mutate({ evaluation_id: 'eval_1', inference_settings: { temperature: 'hot' } });
  // @ts-expect-error modality is text | image | native | image+text
  await client.evals.iterations.create.mutate({ evaluation_id: 'eval_1', inference_settings: { modality: 'video' } });
  // @ts-expect-error evaluation_id is required
  await client.evals.iterations.create.mutate({ inference_settings: { model: 'local-rules' } });
  // @ts-expect-error an unknown field
  await client.evals.iterations.create.mutate({ evaluation_id: 'eval_1', settings: { model: 'local-rules' } });
  // @ts-expect-error a processor needs a model
  await client.processors.create.mutate({ name: 'Reader', json_schema: {} });
  // @ts-expect-error get is a query, not a mutation
  await client.evals.get.mutate({ evaluation_id: 'eval_1' });
  // @ts-expect-error mean_similarity is a number
  const wrong: string = it.metric_results.mean_similarity;

  void [mean, metric, sameAsCore, object, after, wrong];
}

// The same types without a client, for code that builds inputs or consumes outputs.
export const createIterationInput: Inputs['evals']['iterations']['create'] = {
  evaluation_id: 'eval_1',
  inference_settings: { n_consensus: 3 },
};
export const similarityOf = (iteration: Outputs['evals']['iterations']['get']): number => iteration.metric_results.mean_similarity;

// Errors: `data.code` is tRPC's own key (`NOT_FOUND`, ...), `data.docevalsCode` the docevals error code,
// `data.issues` the validation issues with their paths.
export function describeError(error: TRPCClientError<DocevalsRouter>): string {
  const code: ErrorCode | undefined = error.data?.docevalsCode;
  const paths: string[] = (error.data?.issues ?? []).map((issue) => issue.path);
  const trpcKey: TRPC_ERROR_CODE_KEY | undefined = error.data?.code;
  const missing: boolean = error.data?.code === 'NOT_FOUND';
  // @ts-expect-error data.code is tRPC's key, never a docevals code
  const docevalsInTrpcField: boolean = error.data?.code === 'not_found';
  // @ts-expect-error data.docevalsCode is a docevals code, never a tRPC key
  const trpcInDocevalsField: boolean = error.data?.docevalsCode === 'NOT_FOUND';
  void [trpcKey, missing, docevalsInTrpcField, trpcInDocevalsField];
  return `${code ?? 'unknown'} ${paths.join(', ')}`;
}
