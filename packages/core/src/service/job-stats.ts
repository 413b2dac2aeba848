import type { JsonObject } from '../json/assert-json.js';
import { JOBS_SCOPE } from '../storage.js';
import type { OperationContext } from './context.js';
import type { JobRunnerStats } from './jobs/index.js';

/** Counts a queue runner reports per model; summed, they are the fleet's totals. */
const COUNTS = ['depth', 'running', 'completed', 'failed'] as const;

/**
 * The health detail one organization may see (issue 26): its own queued and running iterations per model, from the
 * store, and the fleet's totals without any model name (another organization's models are none of its business).
 * The host's own view, every model by name, is `jobStats()` without an organization.
 */
export async function organizationJobStats(ctx: OperationContext, organizationId: string): Promise<JobRunnerStats> {
  const fleet = ctx.jobRunner.stats ? await ctx.jobRunner.stats() : null;
  return {
    runner: typeof fleet?.runner === 'string' ? fleet.runner : 'in-process',
    ...(fleet ? { fleet: fleetTotals(fleet) } : {}),
    organization: await ownIterations(ctx, organizationId),
  };
}

function fleetTotals(stats: JobRunnerStats): JsonObject {
  const models = (stats.models && typeof stats.models === 'object' ? Object.values(stats.models) : []) as JsonObject[];
  const totals: JsonObject = { models: models.length };
  for (const count of COUNTS) totals[count] = models.reduce((sum, model) => sum + (typeof model[count] === 'number' ? model[count] : 0), 0);
  return {
    ...(stats.workers !== undefined ? { workers: stats.workers } : {}),
    ...(stats.plans !== undefined ? { plans: stats.plans } : {}),
    ...totals,
  };
}

/** The organization's active iterations (at most its cap, listed in the jobs collection), counted per model. */
async function ownIterations(ctx: OperationContext, organizationId: string): Promise<JsonObject> {
  const limit = Math.min(1000, Math.max(ctx.jobs.maxPerOrganization, 100));
  const page = await ctx.storage.jobs.list(JOBS_SCOPE, { limit, order: 'asc', where: { iteration_organization_id: organizationId } });
  const iterations = await Promise.all((page?.items ?? []).map((job) => ctx.storage.iterations.get(organizationId, job.iteration_id)));
  const models: Record<string, { queued: number; running: number }> = {};
  let queued = 0;
  let running = 0;
  for (const found of iterations) {
    const status = found?.value.status;
    if (status !== 'queued' && status !== 'running') continue;
    const counts = (models[found!.value.inference_settings.model] ??= { queued: 0, running: 0 });
    counts[status] += 1;
    if (status === 'queued') queued += 1;
    else running += 1;
  }
  return { queued, running, models };
}
