import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { Authenticate } from './authenticate.js';
import { readApiKey } from './read-api-key.js';
import { JOBS_SCOPE } from '../storage.js';

export interface ApiKeyAuthenticatorOptions {
  /**
   * API key -> organization id. Every key must be a non-empty string and name a non-empty organization.
   * @example { 'sk_live_4f1c...': 'org_acme', 'sk_live_9ab2...': 'org_globex' }
   */
  keys: Readonly<Record<string, string>>;
}

/**
 * The ready {@link Authenticate}: reads the key with {@link readApiKey} (`Api-Key` or `Authorization: Bearer`) and
 * maps it to its organization. The comparison takes the same time whichever key matches, or none: the candidate
 * and every known key are hashed to SHA-256 digests of equal length, and the candidate's digest is compared with
 * every key's digest byte by byte (XOR, no early exit), visiting every key, so response times do not reveal how
 * much of a key was right or which key it resembled.
 *
 * @example
 * const authenticate = apiKeyAuthenticator({ keys: { [process.env.DOCEVALS_KEY!]: 'org_acme' } });
 * const request = (key: string) => new Request('http://x/v1/evals', { headers: { 'Api-Key': key } });
 * await authenticate(request(process.env.DOCEVALS_KEY!), { transport: 'rest' }); // 'org_acme'
 * await authenticate(request('guess'), { transport: 'rest' });                   // null
 */
export function apiKeyAuthenticator(options: ApiKeyAuthenticatorOptions): Authenticate {
  const entries = Object.entries(options.keys).map(([key, organizationId]) => {
    if (typeof key !== 'string' || key.trim() === '' || key.trim() !== key) {
      throw new TypeError('apiKeyAuthenticator: every API key must be a non-empty string without surrounding spaces.');
    }
    if (typeof organizationId !== 'string' || organizationId === '') {
      throw new TypeError('apiKeyAuthenticator: every API key must map to a non-empty organization id.');
    }
    if (organizationId === JOBS_SCOPE) {
      throw new TypeError(
        `apiKeyAuthenticator: the organization "${JOBS_SCOPE}" is reserved (docevals keeps its job records there); map the key to another organization.`,
      );
    }
    return { digest: digestOf(key), organizationId };
  });

  return (request) => {
    const candidate = readApiKey(request);
    if (candidate === null) return null;
    const digest = digestOf(candidate);
    let found: string | null = null;
    for (const entry of entries) {
      // Keep going after a match: the time spent does not depend on which key matched.
      if (digestsEqual(digest, entry.digest)) found = entry.organizationId;
    }
    return found;
  };
}

function digestOf(key: string): Uint8Array {
  return sha256(utf8ToBytes(key));
}

/** Compares two digests of the same length in time independent of their content. */
function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ (b[i] ?? 0);
  return difference === 0;
}
