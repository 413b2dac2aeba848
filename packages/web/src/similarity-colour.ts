/**
 * The colour of a similarity (0..1) in the matrix and the document view: red (0) through amber (0.5) to green (1),
 * as an `hsl()` that reads on the light and the dark palette; `null` (no prediction) is the neutral `--muted-bg`.
 * The number is always written in the cell too: colour is never the only signal.
 *
 * @example
 * <td style={{ background: similarityColour(0.87) }}>0.87</td>
 */
export function similarityColour(similarity: number | null | undefined): string {
  if (similarity === null || similarity === undefined || Number.isNaN(similarity)) return 'var(--muted-bg)';
  const value = Math.min(1, Math.max(0, similarity));
  const hue = Math.round(value * 120); // 0 red, 60 amber, 120 green
  return `hsl(${hue} 70% var(--similarity-lightness))`;
}

/** A similarity as the app writes it: two decimals (`0.87`), or `–` when there is none. */
export function formatSimilarity(similarity: number | null | undefined, digits = 2): string {
  if (similarity === null || similarity === undefined || Number.isNaN(similarity)) return '–';
  return similarity.toFixed(digits);
}
