// Mounting the REST API in a plain node:http server, next to the host's own routes.
// Run: pnpm --filter @docevals/example-mounting node-http
import { createServer, type Server } from 'node:http';
import { createRestHandler } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';
import { BASE_PATH, demoSetup, type DocevalsSetup } from './docevals-setup.js';
import { isMain } from './is-main.js';

/**
 * A node:http server that sends `/api/docevals/*` to docevals and answers everything else itself.
 *
 * @example
 * createNodeHttpServer(demoSetup()).listen(3001);
 */
export function createNodeHttpServer(setup: DocevalsSetup): Server {
  const docevals = toNodeHandler(createRestHandler({ ...setup, basePath: BASE_PATH }));
  return createServer((req, res) => {
    if (req.url === BASE_PATH || req.url?.startsWith(`${BASE_PATH}/`)) return docevals(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('the host application\n');
  });
}

if (isMain(import.meta.url)) {
  const port = Number(process.env.PORT ?? 3001);
  createNodeHttpServer(demoSetup()).listen(port, '127.0.0.1', () => {
    console.log(`node:http host on http://127.0.0.1:${port}, docevals under ${BASE_PATH}`);
    console.log(`curl -H 'Api-Key: dev-key' http://127.0.0.1:${port}${BASE_PATH}/v1/evals`);
  });
}
