import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { ENDPOINTS, type Endpoint } from './endpoints.js';
import { iterationSummarySchema } from '@docevals/core';

/** The error body of every failure (docs/spec/service.md, Errors). */
const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON (`bad_request`)',
  401: 'No key or an unknown key (`unauthorized`)',
  404: 'No such object in this organization (`not_found`)',
  409: 'Id taken, or a json_schema whose structure changed (`conflict`)',
  413: "Body over the host's limit (`payload_too_large`)",
  415: 'Body not `application/json` (`unsupported_media_type`)',
  422: 'Invalid input; every issue listed with its path (`validation_error`)',
  500: 'Unexpected failure (`internal_error`)',
  502: 'The extraction failed (`extractor_error`)',
  503: 'The store is unreachable (`storage_error`)',
};

export interface OpenApiDocumentOptions {
  /** Where the API is mounted; becomes the document's server URL. @default '' */
  basePath?: string;
}

/**
 * The OpenAPI 3.1 document of the REST API, generated from the core's zod schemas, so it cannot disagree with what
 * the service accepts. Paths are the interface's (`/v1/...`); the mount point is the server URL.
 *
 * @example
 * const document = createOpenApiDocument({ basePath: '/api/docevals' });
 * document.paths['/v1/evals'].post.operationId; // 'createEvaluation'
 */
export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): Record<string, unknown> {
  const generator = new OpenAPIHono();
  const registry = generator.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'Api-Key',
    description: 'An API key, sent as `Api-Key: <key>`.',
  });
  registry.registerComponent('securitySchemes', 'Bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'The same API key, sent as `Authorization: Bearer <key>`.',
  });
  const errorBody = registry.register('Error', errorBodySchema);

  for (const endpoint of ENDPOINTS) registry.registerPath(routeOf(endpoint, errorBody));

  registry.registerPath(
    createRoute({
      method: 'get',
      path: '/health',
      operationId: 'health',
      summary: 'Liveness probe (no key needed)',
      tags: ['Service'],
      security: [],
      responses: {
        200: { description: 'The server is up', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } } },
      },
    }),
  );
  registry.registerPath(
    createRoute({
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'openApiDocument',
      summary: 'This OpenAPI document',
      tags: ['Service'],
      responses: {
        200: { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
        401: errorResponse(401, errorBody),
      },
    }),
  );

  return generator.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'docevals',
      version: '1',
      description:
        'Measures LLM document extraction against ground truth: evaluations (documents with annotations, a JSON ' +
        'schema, iterations with predictions and similarity metrics) and processors (stored extraction settings).',
    },
    servers: [{ url: options.basePath || '/' }],
    security: [{ ApiKey: [] }, { Bearer: [] }],
  }) as unknown as Record<string, unknown>;
}

function routeOf(endpoint: Endpoint, errorBody: z.ZodType) {
  const statuses = [401, 404, 422, 500, 503];
  if (endpoint.body) statuses.push(400, 413, 415);
  if (endpoint.operationId.startsWith('create') || endpoint.operationId.startsWith('update')) statuses.push(409);
  if (endpoint.operationId === 'submitToProcessor' || endpoint.background) statuses.push(502);
  if (endpoint.background && !statuses.includes(409)) statuses.push(409);
  const responses: Record<number, ReturnType<typeof errorResponse>> = {};
  for (const status of statuses.sort((a, b) => a - b)) responses[status] = errorResponse(status, errorBody);

  return createRoute({
    method: endpoint.method,
    path: endpoint.path,
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    tags: [endpoint.tag],
    request: {
      ...(endpoint.params ? { params: endpoint.params } : {}),
      ...(endpoint.query ? { query: endpoint.query } : {}),
      ...(endpoint.body
        ? {
            body: {
              required: !endpoint.bodyOptional,
              content: {
                'application/json': { schema: endpoint.body },
                ...Object.fromEntries(Object.keys(endpoint.textBodies ?? {}).map((type) => [type, { schema: z.string() }])),
              },
            },
          }
        : {}),
    },
    responses: {
      200: endpoint.sse
        ? {
            description:
              'A Server-Sent Events stream: `id` (send it back as `Last-Event-ID` to resume), `event` (the type), `data` (JSON of one event)',
            content: { 'text/event-stream': { schema: endpoint.response } },
          }
        : endpoint.produces
          ? { description: 'A file (Content-Disposition names it)', content: Object.fromEntries(endpoint.produces.fileTypes.map((type) => [type, { schema: z.string() }])) }
          : { description: endpoint.background ? 'Done (without `background`)' : 'Success', content: { 'application/json': { schema: endpoint.response } } },
      ...(endpoint.background
        ? {
            202: {
              description: 'Accepted (`"background": true`): the iteration summary, status `queued` or `running`; `Location` names it',
              headers: { Location: { description: 'The iteration', schema: { type: 'string' as const } } },
              content: { 'application/json': { schema: iterationSummarySchema } },
            },
          }
        : {}),
      ...responses,
    },
  });
}

function errorResponse(status: number, schema: z.ZodType) {
  return { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema } } };
}
