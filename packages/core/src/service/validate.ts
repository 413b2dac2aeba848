import type { z } from 'zod';
import { formatPath, validationError, type ErrorIssue } from '../errors.js';

/**
 * Parses an operation's input with its zod schema; a failure is one `validation_error` listing every issue with
 * its dotted path.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issues: ErrorIssue[] = result.error.issues.map((issue) => ({
    path: formatPath(issue.path),
    message: issue.message,
  }));
  throw invalidRequest(issues);
}

/** One validation error for several issues, its message naming the first ones so it says what to fix. */
export function invalidRequest(issues: ErrorIssue[]) {
  const shown = issues
    .slice(0, 3)
    .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
    .join('; ');
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return validationError(`Invalid request: ${shown}${more}.`, issues);
}
