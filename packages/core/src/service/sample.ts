import { DocevalsError } from '../errors.js';
import { loadSampleInputSchema, type EvaluationOverview, type LoadSampleInput } from '../schemas/index.js';
import type { ServiceContext } from './context.js';
import type { evaluationOperations } from './evaluations.js';
import type { iterationOperations } from './iterations.js';
import { requireEvaluation } from './reads.js';
import { renderEvaluationOverview } from './render.js';
import type { DocevalsOptions } from './types.js';
import { parseInput } from './validate.js';

/** What loading the sample goes through: the public create and label operations, so it obeys their every rule. */
interface SampleSteps {
  evaluations: Pick<ReturnType<typeof evaluationOperations>, 'create'>;
  iterations: Pick<ReturnType<typeof iterationOperations>, 'updateMetadata'>;
}

/** `evals.loadSample`: the host's sample evaluation, created for the caller's organization. */
export function sampleOperations(ctx: ServiceContext, sample: DocevalsOptions['sample'], steps: SampleSteps) {
  return {
    /**
     * Creates the host's sample evaluation (`DocevalsOptions.sample`) for the organization, through `evals.create`
     * (documents stored, imported iterations scored), then names its iterations with `updateMetadata`. Each call makes
     * a new evaluation. Answers it as `view=summary` does; `not_configured` when the host offers no sample.
     *
     * @example
     * const sample = await docevals.evals.loadSample('org_1');
     * sample.iterations.map((it) => it.name); // ['Baseline prompt', 'Explicit dates and signs']
     */
    async loadSample(organizationId: string, raw: LoadSampleInput = {}): Promise<EvaluationOverview> {
      parseInput(loadSampleInputSchema, raw);
      if (!sample) throw new DocevalsError('not_configured', 'This server offers no sample evaluation (a host gives one with createDocevals({ sample })).');
      const { evaluation, labels = [] } = await sample();
      const created = await steps.evaluations.create(organizationId, evaluation);
      for (const [i, iteration] of created.iterations.entries()) {
        const label = labels[i];
        if (label) await steps.iterations.updateMetadata(organizationId, { evaluation_id: created.id, iteration_id: iteration.id, ...label });
      }
      return renderEvaluationOverview(ctx, (await requireEvaluation(ctx, organizationId, created.id)).value);
    },
  };
}
