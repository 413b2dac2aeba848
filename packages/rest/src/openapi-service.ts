import { z, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { HealthSchema } from './openapi-bodies.js';
import { ERRORS, errorRef } from './openapi-errors.js';

type Registry = OpenAPIHono['openAPIRegistry'];

interface ServiceRoute {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  security?: Array<Record<string, string[]>>;
  request?: RouteConfig['request'];
  response: { description: string; content: Record<string, { schema: z.ZodType; example: unknown }> };
  errors?: number[];
  notFound?: string;
}

/** The service endpoints beside the operations: liveness, this document, its reference for people. */
const SERVICE_ROUTES: ServiceRoute[] = [
  {
    path: '/health',
    operationId: 'health',
    summary: 'Liveness probe (no key needed)',
    description:
      'Answers 200 while the server runs. Needs no key; checks nothing else (not the store). With `?detail=true` ' +
      'it needs a key (401 without) and adds `jobs`: the job runner\'s queues (docs/workers.md).',
    security: [{}, { ApiKey: [] }, { Bearer: [] }],
    request: {
      query: z.object({
        detail: z.enum(['true', 'false']).optional().meta({ description: '`true`: add the job runner\'s queues (`jobs`); needs a key.' }),
      }),
    },
    response: {
      description: 'The server is up',
      content: {
        'application/json': {
          schema: HealthSchema,
          // The detail form; a plain probe answers `{ "status": "ok" }`.
          example: {
            status: 'ok',
            jobs: {
              runner: 'bullmq',
              workers: 3,
              plans: { depth: 0, running: 0 },
              models: { 'gpt-4o-mini': { depth: 120, running: 8, completed: 172, failed: 0 } },
            },
          },
        },
      },
    },
    errors: [401],
  },
  {
    path: '/v1/openapi.json',
    operationId: 'openApiDocument',
    summary: 'This OpenAPI document',
    description: 'This document (OpenAPI 3.1). Needs a key, like every endpoint of the API.',
    response: {
      description: 'The OpenAPI 3.1 document',
      content: {
        'application/json': {
          schema: z.record(z.string(), z.unknown()).meta({ description: 'An OpenAPI 3.1 document.' }),
          example: { openapi: '3.1.0', info: { title: 'docevals', version: '1' }, paths: {} },
        },
      },
    },
    errors: [401],
  },
  {
    path: '/docs',
    operationId: 'apiReference',
    summary: 'This API\'s reference, for people (no key needed)',
    description:
      'An HTML page rendering this document with Redoc; its two scripts (`/docs/redoc.standalone.js`, ' +
      '`/docs/init.js`) come from this server too, never from a CDN. Needs no key: it holds no data.',
    security: [],
    notFound: "The host serves no reference: the optional `redoc` package is not installed, or the handler's `docs` option is false.",
    response: {
      description: 'The HTML page',
      content: { 'text/html': { schema: z.string().meta({ description: 'An HTML document.' }), example: '<!doctype html><html>...</html>' } },
    },
  },
];

/** Registers the GET and HEAD of every service endpoint, tagged `Service`. */
export function registerServiceRoutes(registry: Registry): void {
  for (const route of SERVICE_ROUTES) {
    const base = {
      path: route.path,
      tags: ['Service'],
      ...(route.security ? { security: route.security } : {}),
      ...(route.request ? { request: route.request } : {}),
    };
    // docevals answers these two no 4xx of its own; the host's server or a proxy may (431 for oversized headers).
    const hostErrors = { '4XX': { description: "Not answered by docevals: the host's HTTP server or a proxy may refuse the request (431 for oversized headers)." } };
    const errors = route.errors
      ? Object.fromEntries(route.errors.map((status) => [status, errorRef(status)]))
      : route.notFound
        ? { 404: { description: route.notFound, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { error: { code: 'not_found', message: 'The API reference needs the "redoc" package: install it next to @docevals/rest.' } } } } } }
        : hostErrors;
    const headErrors = route.errors
      ? Object.fromEntries(route.errors.map((s) => [s, { description: ERRORS[s]!.description }]))
      : route.notFound
        ? { 404: { description: route.notFound } }
        : hostErrors;
    registry.registerPath({
      ...base,
      method: 'get',
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      responses: { 200: route.response, ...errors },
    } as RouteConfig);
    registry.registerPath({
      ...base,
      method: 'head',
      operationId: `${route.operationId}Head`,
      summary: `${route.summary}: headers only`,
      description: `The headers of \`GET ${route.path}\`, without the body.`,
      responses: { 200: { description: 'The headers of the GET' }, ...headErrors },
    } as RouteConfig);
  }
}
