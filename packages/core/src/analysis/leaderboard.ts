import type { Leaderboard, LeaderboardRow, LeaderboardSortKey } from '../schemas/analysis.js';

export type { Leaderboard, LeaderboardRow, LeaderboardSortKey };

/** What the leaderboard reads of one iteration (its summary: no per-document data). */
export interface LeaderboardIteration {
  id: string;
  /** Its name, when it has one. */
  name?: string | null;
  model: string;
  inference_settings: Record<string, unknown>;
  status: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Failure-counting, over labeled documents (docs/spec/metrics.md section 5); null when none finished. */
  mean_similarity: number | null;
  aligned_mean_similarity: number | null;
  /** Over the labeled succeeded documents only; null when none. */
  succeeded_mean_similarity?: number | null;
  /** succeeded / (succeeded + failed); null when none finished. */
  coverage?: number | null;
  succeeded: number;
  failed: number;
  pending: number;
  unlabeled?: number;
  partial?: boolean;
  /** Summed api cost; null when no prediction had a known cost. */
  cost: number | null;
}

/**
 * Ranks an evaluation's completed iterations (docs/spec/analysis.md). Default: best failure-counting mean similarity
 * first (an iteration that fails documents cannot rank above one that reads them all fairly well); rows whose
 * sort value is null come last whatever the order; ties keep the oldest first.
 *
 * @example
 * leaderboard(summaries).rows[0].iteration_id; // the best iteration
 * leaderboard(summaries, { sort: 'cost', order: 'asc' }); // cheapest first
 */
export function leaderboard(
  iterations: readonly LeaderboardIteration[],
  options: { sort?: LeaderboardSortKey; order?: 'asc' | 'desc' } = {},
): Leaderboard {
  const sort = options.sort ?? 'mean_similarity';
  const order = options.order ?? (sort === 'cost' || sort === 'duration_ms' || sort === 'failed' ? 'asc' : 'desc');
  const completed = iterations.filter((it) => it.status === 'completed');
  const differing = differingKeys(completed.map((it) => it.inference_settings));
  const rows: LeaderboardRow[] = completed.map((it) => ({
    rank: 0,
    iteration_id: it.id,
    name: it.name ?? null,
    model: it.model,
    settings: Object.fromEntries(differing.map((key) => [key, it.inference_settings[key] ?? null])),
    mean_similarity: it.mean_similarity,
    aligned_mean_similarity: it.aligned_mean_similarity,
    succeeded_mean_similarity: it.succeeded_mean_similarity ?? null,
    coverage: it.coverage ?? null,
    succeeded: it.succeeded,
    failed: it.failed,
    pending: it.pending,
    unlabeled: it.unlabeled ?? 0,
    partial: it.partial ?? false,
    cost: it.cost,
    duration_ms: durationMs(it.started_at, it.finished_at),
    created_at: it.created_at,
  }));
  const sign = order === 'asc' ? 1 : -1;
  rows.sort((a, b) => {
    const x = a[sort];
    const y = b[sort];
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1;
    } else if (x !== y) {
      return (x < y ? -1 : 1) * sign;
    }
    return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0;
  });
  rows.forEach((row, i) => (row.rank = i + 1));
  return { sort, order, differing_settings: differing, rows };
}

function differingKeys(settings: ReadonlyArray<Record<string, unknown>>): string[] {
  const keys = new Set(settings.flatMap((s) => Object.keys(s)));
  return [...keys].filter((key) => new Set(settings.map((s) => JSON.stringify(s[key] ?? null))).size > 1).sort();
}

function durationMs(started: string | null, finished: string | null): number | null {
  if (!started || !finished) return null;
  const ms = Date.parse(finished) - Date.parse(started);
  return Number.isFinite(ms) ? ms : null;
}
