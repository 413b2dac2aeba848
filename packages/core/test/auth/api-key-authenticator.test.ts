import { describe, expect, it } from 'vitest';
import { apiKeyAuthenticator } from '../../src/auth/api-key-authenticator.js';
import { JOBS_SCOPE } from '../../src/storage.js';

const authenticate = apiKeyAuthenticator({ keys: { sk_alpha: 'org_a', sk_beta: 'org_b', 'sk_ünïcode': 'org_u' } });

const REST = { transport: 'rest' } as const;

describe('apiKeyAuthenticator', () => {
  it('maps each known key to its organization, from either header', async () => {
    expect(await authenticate(new Request('http://x/v1/evals', { headers: { 'Api-Key': 'sk_alpha' } }), REST)).toBe('org_a');
    expect(await authenticate(new Request('http://x/v1/evals', { headers: { Authorization: 'Bearer sk_beta' } }), REST)).toBe('org_b');
    expect(await authenticate(new Request('http://x/v1/evals', { headers: { 'Api-Key': 'sk_ünïcode' } }), REST)).toBe('org_u');
  });

  it('refuses unknown keys, prefixes, extensions and case changes', async () => {
    for (const key of ['sk_alph', 'sk_alphaa', 'SK_ALPHA', 'org_a', 'x'.repeat(10_000)]) {
      expect(await authenticate(new Request('http://x/v1/evals', { headers: { 'Api-Key': key } }), REST)).toBeNull();
    }
  });

  it('refuses a request without a key', async () => {
    expect(await authenticate(new Request('http://x/v1/evals'), REST)).toBeNull();
  });

  it('authenticates nobody when no keys are configured', async () => {
    expect(await apiKeyAuthenticator({ keys: {} })(new Request('http://x/', { headers: { 'Api-Key': 'anything' } }), REST)).toBeNull();
  });

  it('refuses at construction a key mapped to the reserved jobs organization, saying so', () => {
    expect(() => apiKeyAuthenticator({ keys: { sk_fine: 'org', sk_jobs: JOBS_SCOPE } })).toThrow(/"docevals-jobs" is reserved/);
  });

  it('rejects empty keys and empty organizations at construction', () => {
    expect(() => apiKeyAuthenticator({ keys: { '': 'org' } })).toThrow(TypeError);
    expect(() => apiKeyAuthenticator({ keys: { ' padded ': 'org' } })).toThrow(TypeError);
    expect(() => apiKeyAuthenticator({ keys: { sk: '' } })).toThrow(TypeError);
  });
});
