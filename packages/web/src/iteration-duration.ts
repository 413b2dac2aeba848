/** What an iteration's run time is read from: its summary's status and dates. */
export interface IterationTimes {
  status: string;
  started_at: string | null;
  finished_at: string | null;
}

/**
 * An iteration's duration for people: "12.3 s" for a run; "imported (no run time)" for an iteration imported with
 * its predictions (`evals.create` stores it completed, started and finished at the same instant: it never ran
 * here, so a 0 would be a false figure); "–" while it has not finished.
 */
export function iterationDuration(iteration: IterationTimes): string {
  if (!iteration.started_at || !iteration.finished_at) return '–';
  const ms = Date.parse(iteration.finished_at) - Date.parse(iteration.started_at);
  if (iteration.status === 'completed' && ms === 0) return 'imported (no run time)';
  return `${(ms / 1000).toFixed(1)} s`;
}
