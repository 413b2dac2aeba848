// A host's own Express 5 server, outside the docevals repository: docevals's REST API, tRPC router and web app under
// /evals, behind the host's session-cookie auth. Built by test-support/packaging.test.ts from the packed tarballs.
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { refuse, type Authenticate, type Docevals } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';
import { createRestHandler } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';
import { createDocevalsContext, createDocevalsRouter } from '@docevals/trpc';
import { createWebHandler } from '@docevals/web';

// A second copy of the core: its CommonJS build, next to the ES module build the transports import. The service's
// errors (a 404 for an unknown evaluation) come from this copy.
const cjsCore = createRequire(import.meta.url)('@docevals/core') as typeof import('@docevals/core');
const docevals: Docevals = cjsCore.createDocevals({ storage: memoryStorage() });

const SESSIONS: Record<string, string> = { s_good: 'org_acme' };

/** The host's auth: a session cookie; no session is a 401 in the host's words, with its own scheme. */
const authenticate: Authenticate = (request, context) => {
  const sid = /(?:^|;\s*)sid=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  const organization = sid === undefined ? undefined : SESSIONS[sid];
  if (organization !== undefined && context.nodeRequest !== undefined) return organization;
  return refuse('Sign in to acme first.', { wwwAuthenticate: 'Cookie realm="acme"' });
};

const rest = createRestHandler({ docevals, authenticate, basePath: '/evals' });
const web = createWebHandler({ basePath: '/evals' });

const app = express();
app.use('/evals/trpc', createExpressMiddleware({ router: createDocevalsRouter({ docevals }), createContext: createDocevalsContext({ authenticate }) }));
app.use(
  '/evals',
  toNodeHandler((request, context) => {
    const { pathname } = new URL(request.url);
    const api = pathname.startsWith('/evals/v1/') || pathname === '/evals/health' || pathname.startsWith('/evals/docs');
    return api ? rest(request, context) : web(request);
  }),
);

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
