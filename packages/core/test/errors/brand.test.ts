import { describe, expect, it, vi } from 'vitest';
import { DocevalsError, isDocevalsError, notFound, storageError } from '../../src/errors.js';

/** A second, separately evaluated copy of the errors module: what a second copy of `@docevals/core` in an app is. */
async function secondCopy(): Promise<typeof import('../../src/errors.js')> {
  // A fresh module registry: the file is evaluated again, with its own DocevalsError class.
  vi.resetModules();
  return import('../../src/errors.js');
}

describe('the DocevalsError brand', () => {
  it('is the registered symbol docevals.error', () => {
    expect((notFound('evaluation', 'eval_1') as unknown as Record<symbol, unknown>)[Symbol.for('docevals.error')]).toBe(true);
  });

  it('makes an error of another copy of the core a DocevalsError here, by isDocevalsError and instanceof', async () => {
    const other = await secondCopy();
    expect(other.DocevalsError).not.toBe(DocevalsError);
    const foreign = other.notFound('evaluation', 'eval_1');
    expect(isDocevalsError(foreign)).toBe(true);
    expect(foreign instanceof DocevalsError).toBe(true);
    expect(other.isDocevalsError(new DocevalsError('conflict', 'taken'))).toBe(true);
    // What a transport reads from it: the code and the public body, the storage message kept by its own copy.
    const failure = other.storageError('redis', 'files.get', new Error('connect ECONNREFUSED 10.0.0.7:6379'));
    expect(isDocevalsError(failure) && failure.toJSON().error.message).toBe(
      'The redis storage failed during files.get; the server logged the cause.',
    );
  });

  it('is not given to errors that merely look alike', () => {
    const lookalike = Object.assign(new Error('x'), { name: 'DocevalsError', code: 'not_found' });
    expect(isDocevalsError(lookalike)).toBe(false);
    expect(lookalike instanceof DocevalsError).toBe(false);
    expect(isDocevalsError({ [Symbol.for('docevals.error')]: true })).toBe(false); // no code
    expect(isDocevalsError(null)).toBe(false);
    expect(isDocevalsError(storageError('memory', 'x', 'y'))).toBe(true);
  });
});
