import { apiKeyAuthenticator, createDocevals, type Authenticate, type Docevals } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';

/** Where every example mounts the REST API. */
export const BASE_PATH = '/api/docevals';

export interface DocevalsSetup {
  docevals: Docevals;
  authenticate: Authenticate;
}

/**
 * The service and the keys the mounting examples share: in-memory storage, one key from `DOCEVALS_API_KEY`
 * (default `dev-key`) for organization `org_demo`.
 *
 * @example
 * const { docevals, authenticate } = demoSetup();
 */
export function demoSetup(key = process.env.DOCEVALS_API_KEY ?? 'dev-key'): DocevalsSetup {
  return {
    docevals: createDocevals({ storage: memoryStorage() }),
    authenticate: apiKeyAuthenticator({ keys: { [key]: 'org_demo' } }),
  };
}
