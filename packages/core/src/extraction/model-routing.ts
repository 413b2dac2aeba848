import type { Extractor } from '../extractor.js';

/**
 * Whether one `models` entry of an extractor serves `model`: an exact name, a `*` glob (`gpt-*`, `*`), or a RegExp.
 *
 * @example
 * modelMatches('gpt-*', 'gpt-4o'); // true
 * modelMatches(/^claude-/, 'gpt-4o'); // false
 */
export function modelMatches(pattern: string | RegExp, model: string): boolean {
  if (pattern instanceof RegExp) {
    // A global or sticky RegExp keeps lastIndex between calls; reset it so routing does not alternate.
    pattern.lastIndex = 0;
    return pattern.test(model);
  }
  if (!pattern.includes('*')) return pattern === model;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(model);
}

/** The first extractor that serves `model`, in registration order; undefined when none does. */
export function findExtractor(extractors: ReadonlyArray<Extractor>, model: string): Extractor | undefined {
  return extractors.find((extractor) => extractor.models.some((pattern) => modelMatches(pattern, model)));
}

/** A `models` entry as text: names and globs as they are, a RegExp as `/source/flags`. */
export function describeModelPattern(pattern: string | RegExp): string {
  return pattern instanceof RegExp ? String(pattern) : pattern;
}
