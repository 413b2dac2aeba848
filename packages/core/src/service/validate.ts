import type { z } from 'zod';
import { formatPath, validationError, type ErrorIssue } from '../errors.js';
import { FORBIDDEN_KEY, findForbiddenKey } from '../json/json-body-limits.js';
import { LIMITS } from '../limits.js';

/**
 * Parses an operation's input with its zod schema; a failure is one `validation_error` listing the issues with
 * their dotted paths (the first `LIMITS.maxIssues`, then one issue counting the rest). An own `__proto__` key
 * anywhere in the input is refused first, with its path (docs/spec/limits.md).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  assertNoForbiddenKey(input);
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw invalidRequest(issuesOf(result.error.issues), result.error.issues.length);
}

/** Zod's issues as docevals issues: dotted paths, at most `LIMITS.maxIssues` of them converted. */
export function issuesOf(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): ErrorIssue[] {
  return issues.slice(0, LIMITS.maxIssues + 1).map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/**
 * Throws the `validation_error` for an own `__proto__` key anywhere in `input`.
 *
 * @example
 * assertNoForbiddenKey(JSON.parse('{"annotation":{"__proto__":1}}')); // throws, path "annotation.__proto__"
 */
export function assertNoForbiddenKey(input: unknown): void {
  const path = findForbiddenKey(input);
  if (path === null) return;
  throw invalidRequest([
    { path: formatPath(path), message: `the key "${FORBIDDEN_KEY}" is not allowed in docevals JSON; rename it` },
  ]);
}

/**
 * One validation error for several issues, its message naming the first ones so it says what to fix. At most
 * `LIMITS.maxIssues` issues are kept; past that one more issue (path `""`) says how many were left out.
 */
export function invalidRequest(issues: ErrorIssue[], total = issues.length) {
  total = Math.max(total, issues.length);
  const shown = issues
    .slice(0, 3)
    .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
    .join('; ');
  const more = total > 3 ? ` (and ${total - 3} more)` : '';
  const kept =
    issues.length > LIMITS.maxIssues
      ? [
          ...issues.slice(0, LIMITS.maxIssues),
          { path: '', message: `${total - LIMITS.maxIssues} more issues not listed; fix these first` },
        ]
      : issues;
  return validationError(`Invalid request: ${shown}${more}.`, kept);
}
