import { describe, expect, it, vi } from 'vitest';
import { errorResponse } from '../src/index.js';

describe('errors of a second copy of @docevals/core', () => {
  it('keep their status: a 404 stays a 404, a 422 a 422', async () => {
    vi.resetModules();
    const other = await import('../../core/src/errors.js'); // evaluated again: another DocevalsError class
    const notFound = errorResponse(other.notFound('evaluation', 'eval_1'));
    expect(notFound.status).toBe(404);
    expect((await notFound.json()).error.code).toBe('not_found');
    const invalid = errorResponse(other.validationError('Bad body.', [{ path: 'name', message: 'Required' }]));
    expect(invalid.status).toBe(422);
    expect((await invalid.json()).error.issues).toEqual([{ path: 'name', message: 'Required' }]);
  });
});
