// Mounting the REST API in an Express 5 application that parses JSON bodies itself.
// Run: pnpm --filter @docevals/example-mounting express
import express, { type ErrorRequestHandler, type Express } from 'express';
import { createRestHandler } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';
import { BASE_PATH, demoSetup, type DocevalsSetup } from './docevals-setup.js';
import { isMain } from './is-main.js';

/**
 * An Express app with `express.json()` in front of everything, docevals mounted at `/api/docevals`.
 *
 * Two things to know. `app.use(BASE_PATH, ...)` cuts the mount path off `req.url`; the node handler routes on
 * `req.originalUrl`, so give `createRestHandler` the same `basePath`. And a body `express.json()` parsed is
 * re-serialized for docevals: raise its `limit` (100 kB by default) to what docevals accepts, or mount docevals
 * before `express.json()` so the body streams straight to it (its limit, its 400/413/415 bodies).
 *
 * @example
 * createExpressApp(demoSetup()).listen(3002);
 */
export function createExpressApp(setup: DocevalsSetup): Express {
  const app = express();
  app.use(express.json({ limit: '32mb' }));
  app.get('/', (_req, res) => {
    res.type('text/plain').send('the host application\n');
  });
  app.use(BASE_PATH, toNodeHandler(createRestHandler({ ...setup, basePath: BASE_PATH })));
  app.use(BASE_PATH, bodyParserErrors);
  return app;
}

/**
 * `express.json()` answers broken JSON, a body over its limit or a charset it cannot read before docevals sees the
 * request: give those answers docevals' error body too, so clients see one shape under the mount path.
 */
const bodyParserErrors: ErrorRequestHandler = (error, _req, res, next) => {
  const codes: Record<string, string> = {
    'entity.parse.failed': 'bad_request',
    'entity.too.large': 'payload_too_large',
    'charset.unsupported': 'unsupported_media_type',
    'encoding.unsupported': 'unsupported_media_type',
  };
  const code = codes[(error as { type?: string }).type ?? ''];
  if (!code) return next(error);
  res.status((error as { status: number }).status).json({ error: { code, message: `The request body was refused: ${(error as Error).message}.` } });
};

if (isMain(import.meta.url)) {
  const port = Number(process.env.PORT ?? 3002);
  createExpressApp(demoSetup()).listen(port, '127.0.0.1', () => {
    console.log(`Express host on http://127.0.0.1:${port}, docevals under ${BASE_PATH}`);
    console.log(`curl -H 'Api-Key: dev-key' http://127.0.0.1:${port}${BASE_PATH}/v1/evals`);
  });
}
