import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals, refuse, type Authenticate, type AuthenticateContext } from '@docevals/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestHandler } from '../src/index.js';
import { toNodeHandler } from '../src/node/index.js';

/** A host's session cookie auth: reads the cookie from the Request, the session the node layer attached from nodeRequest. */
const seen: AuthenticateContext[] = [];
const authenticate: Authenticate = (request, context) => {
  seen.push(context);
  const sid = /(?:^|;\s*)sid=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  if (sid === 's_good') return 'org_cookie';
  const session = (context.nodeRequest as { session?: { organizationId?: string } } | undefined)?.session;
  if (session?.organizationId) return session.organizationId;
  if (sid === undefined) return null; // the API-key 401
  return refuse('Your session has expired: sign in again.', { wwwAuthenticate: 'Cookie realm="acme"' });
};

let server: Server;
let base: string;
beforeAll(async () => {
  const handler = toNodeHandler(createRestHandler({ docevals: createDocevals({ storage: memoryStorage() }), authenticate, basePath: '/evals' }));
  server = createServer((req: IncomingMessage & { session?: unknown }, res) => {
    // What a host's middleware does before docevals: attach the session it found.
    if (req.headers['x-test-session'] === 'yes') req.session = { organizationId: 'org_session' };
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/evals`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('authenticate(request, context) in the REST handler', () => {
  it('receives the whole request: a session cookie authenticates', async () => {
    const response = await fetch(`${base}/v1/evals`, { headers: { cookie: 'theme=dark; sid=s_good' } });
    expect(response.status).toBe(200);
    expect(seen.at(-1)?.transport).toBe('rest');
  });

  it('receives the node request through toNodeHandler', async () => {
    const response = await fetch(`${base}/v1/evals`, { headers: { 'x-test-session': 'yes' } });
    expect(response.status).toBe(200);
    expect((seen.at(-1)?.nodeRequest as IncomingMessage).headers['x-test-session']).toBe('yes');
  });

  it("answers a refusal with the host's message and WWW-Authenticate scheme, routes unknown or not", async () => {
    for (const path of ['/v1/evals', '/v1/nowhere', '/health?detail=true']) {
      const response = await fetch(`${base}${path}`, { headers: { cookie: 'sid=s_expired' } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Cookie realm="acme"');
      expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: 'Your session has expired: sign in again.' } });
    }
  });

  it('keeps the API-key 401 for null', async () => {
    const response = await fetch(`${base}/v1/evals`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="docevals"');
    expect((await response.json()).error.message).toMatch(/^No API key was sent/);
  });
});
