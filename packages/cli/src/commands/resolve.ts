import type { IterationSummary } from '@docevals/core';
import type { DocevalsClient, EvaluationInfo } from '../client.js';
import { CliError, EXIT } from '../errors.js';
import { findByName } from './import.js';

/** `<eval>`: an evaluation id, or its name. */
export async function resolveEvaluation(client: DocevalsClient, ref: string): Promise<EvaluationInfo> {
  if (/^eval_[A-Za-z0-9_-]+$/.test(ref)) {
    try {
      return await client.getEvaluation(ref);
    } catch (error) {
      if (!(error instanceof CliError) || error.exitCode !== EXIT.refused) throw error;
    }
  }
  const found = await findByName(client, ref);
  if (!found) throw new CliError(`no evaluation has the id or name "${ref}" on ${client.target} (docevals ls lists them)`, EXIT.usage);
  return found;
}

const completed = (iterations: IterationSummary[]) => iterations.filter((i) => i.status === 'completed');

/**
 * An iteration reference: an id, `latest` (the newest completed iteration), `previous` (the completed one before
 * `relativeTo`), `best` (the completed one with the highest mean similarity, other than `relativeTo`).
 */
export function pickIteration(iterations: IterationSummary[], ref: string, relativeTo?: IterationSummary): IterationSummary | null {
  const done = completed(iterations);
  if (ref === 'latest') return done.at(-1) ?? null;
  if (ref === 'previous') {
    const at = relativeTo ? done.findIndex((i) => i.id === relativeTo.id) : done.length;
    const before = (at === -1 ? done.filter((i) => i.created_at < relativeTo!.created_at) : done.slice(0, at));
    return before.at(-1) ?? null;
  }
  if (ref === 'best') {
    const others = done.filter((i) => i.id !== relativeTo?.id && i.metric_results.mean_similarity !== null);
    return others.reduce<IterationSummary | null>((best, i) => (!best || i.metric_results.mean_similarity! > best.metric_results.mean_similarity! ? i : best), null);
  }
  const byId = iterations.find((i) => i.id === ref);
  if (!byId) throw new CliError(`no iteration ${ref} in this evaluation (latest, previous, best or an id)`, EXIT.usage);
  return byId;
}
