import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals } from '@docevals/core';
import { initTRPC } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { expect, it } from 'vitest';
import { createDocevalsContext, createDocevalsRouter, formatDocevalsError, type DocevalsContext } from '../src/index.js';

it("mounts under a host's own router, which keeps docevals' error shape by using its formatter", async () => {
  const t = initTRPC.context<DocevalsContext & { requestId: string }>().create({ errorFormatter: formatDocevalsError });
  const app = t.router({
    ping: t.procedure.query(({ ctx }) => `pong ${ctx.requestId}`),
    docevals: createDocevalsRouter({ docevals: createDocevals({ storage: memoryStorage() }) }),
  });
  const docevalsContext = createDocevalsContext({ authenticate: (request) => (request.headers.get('api-key') === 'k' ? 'org_1' : null) });

  const response = await fetchRequestHandler({
    endpoint: '/api',
    router: app,
    req: new Request(`http://host/api/docevals.evals.get?input=${encodeURIComponent('{"evaluation_id":"eval_x"}')}`, {
      headers: { 'Api-Key': 'k' },
    }),
    createContext: async (opts) => ({ ...(await docevalsContext(opts)), requestId: 'r1' }),
  });
  expect(response.status).toBe(404);
  expect((await response.json()).error.data).toEqual({ code: 'NOT_FOUND', docevalsCode: 'not_found', httpStatus: 404, path: 'docevals.evals.get' });

  // Server-side calls without HTTP, typed the same way.
  const caller = app.createCaller({ organizationId: 'org_1', requestId: 'r2' });
  expect(await caller.ping()).toBe('pong r2');
  expect(await caller.docevals.evals.list()).toEqual({ data: [], list_metadata: { before: null, after: null } });
  await expect(app.createCaller({ organizationId: null, requestId: 'r3' }).docevals.evals.list()).rejects.toMatchObject({
    code: 'UNAUTHORIZED',
  });
});
