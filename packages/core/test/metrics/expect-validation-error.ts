import { expect } from 'vitest';
import { DocevalsError } from '../../src/index.js';

/** Runs `fn`, expecting the typed validation error whose (first) issue names `path`. */
export function expectValidationError(fn: () => unknown, path: string): DocevalsError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DocevalsError);
  const error = caught as DocevalsError;
  expect(error.code).toBe('validation_error');
  expect(error.issues?.[0]?.path).toBe(path);
  return error;
}

/** A value nested `levels` deep ({} is one level), built without recursion. */
export function nested(levels: number, key = 'a'): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { [key]: value };
  return value;
}
