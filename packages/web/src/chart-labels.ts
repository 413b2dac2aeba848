import type { RouterOutputs } from './trpc.js';

type IterationSummary = RouterOutputs['evals']['getSummary']['iterations'][number];

/**
 * Labels short enough for an axis or a legend: the iteration's name, else its model, numbered (`model #2`) when
 * several iterations share it. The full label (with the id) is in each chart's data table.
 */
export function shortLabels(iterations: readonly IterationSummary[]): Map<string, string> {
  const base = iterations.map((iteration) => {
    const name = iteration.name;
    return name ? name : iteration.inference_settings.model;
  });
  const counts = new Map<string, number>();
  for (const label of base) counts.set(label, (counts.get(label) ?? 0) + 1);
  const seen = new Map<string, number>();
  return new Map(
    iterations.map((iteration, i) => {
      const label = base[i]!;
      if (counts.get(label) === 1) return [iteration.id, label];
      const n = (seen.get(label) ?? 0) + 1;
      seen.set(label, n);
      return [iteration.id, `${label} #${n}`];
    }),
  );
}

export const round = (value: number) => Math.round(value * 1000) / 1000;
