// Mounting the REST API in a Fastify 5 application.
// Run: pnpm --filter @docevals/example-mounting fastify
import Fastify, { type FastifyInstance } from 'fastify';
import { createRestHandler } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';
import { BASE_PATH, demoSetup, type DocevalsSetup } from './docevals-setup.js';
import { isMain } from './is-main.js';

/**
 * A Fastify app with docevals at `/api/docevals`. Fastify parses JSON bodies itself (with a 1 MiB limit); inside
 * the docevals plugin a catch-all content-type parser leaves the request stream untouched, so the body streams
 * into docevals with its own limit and error bodies. `reply.hijack()` tells Fastify the response is written
 * elsewhere. The rest of the app keeps Fastify's parsers: the plugin's are encapsulated.
 *
 * The other way, keeping Fastify's parser: `nodeHandler(Object.assign(request.raw, { body: request.body }),
 * reply.raw)`, and the node handler re-serializes the parsed body.
 *
 * @example
 * await createFastifyApp(demoSetup()).listen({ port: 3003 });
 */
export function createFastifyApp(setup: DocevalsSetup): FastifyInstance {
  const app = Fastify();
  const nodeHandler = toNodeHandler(createRestHandler({ ...setup, basePath: BASE_PATH }));

  app.get('/', async () => 'the host application\n');

  app.register(async (docevals) => {
    docevals.removeAllContentTypeParsers();
    docevals.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const forward = (request: { raw: Parameters<typeof nodeHandler>[0] }, reply: { hijack(): void; raw: Parameters<typeof nodeHandler>[1] }) => {
      reply.hijack();
      nodeHandler(request.raw, reply.raw);
    };
    docevals.all(BASE_PATH, forward);
    docevals.all(`${BASE_PATH}/*`, forward);
  });
  return app;
}

if (isMain(import.meta.url)) {
  const port = Number(process.env.PORT ?? 3003);
  const app = createFastifyApp(demoSetup());
  await app.listen({ port, host: '127.0.0.1' });
  console.log(`Fastify host on http://127.0.0.1:${port}, docevals under ${BASE_PATH}`);
  console.log(`curl -H 'Api-Key: dev-key' http://127.0.0.1:${port}${BASE_PATH}/v1/evals`);
}
