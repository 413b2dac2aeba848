import { expect } from 'vitest';

/**
 * What `promise` rejected with, checked to be an instance of `type` when one is given; fails the test when it
 * resolved.
 *
 * @example
 * const error = await rejectionOf(docevals.evals.get(ORG, { evaluation_id: 'nope' }), DocevalsError);
 * expect(error.code).toBe('not_found');
 */
export async function rejectionOf<E = { code?: string; message: string; cause?: unknown }>(
  promise: Promise<unknown>,
  type?: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (type) expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error('expected a rejection');
}
