import { describe, expect, it, vi } from 'vitest';
import { toTRPCError } from '../src/index.js';

describe('errors of a second copy of @docevals/core', () => {
  it('keep their tRPC code', async () => {
    vi.resetModules();
    const other = await import('../../core/src/errors.js'); // evaluated again: another DocevalsError class
    expect(toTRPCError(other.notFound('evaluation', 'eval_1')).code).toBe('NOT_FOUND');
    expect(toTRPCError(other.validationError('Bad body.')).code).toBe('BAD_REQUEST');
  });
});
