import { describe, expect, it } from 'vitest';
import { isAuthenticationRefusal, refuse } from '../../src/auth/authenticate.js';

describe('refuse', () => {
  it('builds the typed refusal a host returns from authenticate', () => {
    const refusal = refuse('Sign in first.', { wwwAuthenticate: 'Cookie realm="acme"' });
    expect(refusal).toEqual({ refused: true, message: 'Sign in first.', wwwAuthenticate: 'Cookie realm="acme"' });
    expect(isAuthenticationRefusal(refusal)).toBe(true);
    expect(refuse('No.')).toEqual({ refused: true, message: 'No.' });
  });

  it('tells a refusal from an organization id, null and look-alikes', () => {
    expect(isAuthenticationRefusal('org_1')).toBe(false);
    expect(isAuthenticationRefusal(null)).toBe(false);
    expect(isAuthenticationRefusal({ refused: 'yes', message: 'x' })).toBe(false);
    expect(() => refuse('  ')).toThrow(TypeError);
  });
});
