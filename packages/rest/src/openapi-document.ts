import { INTERNAL_ERROR_MESSAGE, unauthorizedError } from '@docevals/core';
import { operations } from '@docevals/core/internal';
import { createRoute, OpenAPIHono, z, type RouteConfig } from '@hono/zod-openapi';
import { ENDPOINTS, type Endpoint } from './endpoints.js';
import { OPERATION_DOCS, type OperationDoc } from './openapi-operations.js';
import { flattenAnnotatedRefs } from './openapi-refs.js';
import {
  HealthSchema,
} from './openapi-bodies.js';
import {
  NAMED_SCHEMAS,
  componentOf,
} from './openapi-named.js';
import {
  IterationSummarySchema,
} from './openapi-schemas.js';

/** Every error status an operation may answer, with what it means and an example body. */
const ERRORS: Record<number, { name: string; description: string; code: string; message: string }> = {
  400: { name: 'BadRequest', description: 'The body is not JSON (`bad_request`).', code: 'bad_request', message: 'The request body is not valid JSON: Unexpected end of JSON input.' },
  401: {
    name: 'Unauthorized',
    description: 'No key, or an unknown key (`unauthorized`). Send it as `Api-Key: <key>` or `Authorization: Bearer <key>`.',
    code: 'unauthorized',
    message: unauthorizedError(false).message,
  },
  404: { name: 'NotFound', description: 'No such object in this organization: another organization\'s object is answered the same (`not_found`).', code: 'not_found', message: 'No evaluation "eval_invoices".' },
  408: { name: 'RequestTimeout', description: 'The body did not arrive within the host\'s body-read time, 60 s by default (`request_timeout`); the connection is closed.', code: 'request_timeout', message: 'The request body did not arrive within 60 s, this server\'s limit; send it faster or smaller.' },
  409: { name: 'Conflict', description: 'The id is taken, or a json_schema changes the structure (schema_data_id) of an evaluation that has iterations (`conflict`).', code: 'conflict', message: 'The id "eval_invoices" is taken.' },
  413: { name: 'PayloadTooLarge', description: 'The body is over the host\'s limit, 32 MiB by default (`payload_too_large`).', code: 'payload_too_large', message: 'The request body is larger than 33554432 bytes.' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not `application/json` (`unsupported_media_type`).', code: 'unsupported_media_type', message: 'The request body must be application/json.' },
  422: {
    name: 'ValidationError',
    description: 'The input is invalid: `issues` lists every problem with its path (`validation_error`).',
    code: 'validation_error',
    message: 'Invalid request: name: name must not be empty.',
  },
  429: {
    name: 'RateLimited',
    description:
      'Too many requests for this key, or the organization already has as many queued and running iterations as ' +
      'the host allows (`rate_limited`); the `Retry-After` header and `retry_after` say when to retry.',
    code: 'rate_limited',
    message: 'This organization already has 20 queued or running iterations; retry once one has finished.',
  },
  500: { name: 'InternalError', description: 'An unexpected failure, logged by the host; the body says nothing more (`internal_error`).', code: 'internal_error', message: INTERNAL_ERROR_MESSAGE },
  502: { name: 'ExtractorError', description: 'The extraction failed: the model\'s provider refused, timed out or answered invalid data (`extractor_error`).', code: 'extractor_error', message: 'The extraction failed: the provider answered 503.' },
  501: {
    name: 'NotConfigured',
    description: 'A feature this server has not set up (`not_configured`): organization secrets without a master key. The message says how to configure it.',
    code: 'not_configured',
    message: 'Organization secrets are not configured on this server: it has no master key to encrypt them with. ...',
  },
  503: { name: 'StorageError', description: 'The store is unreachable or refused (`storage_error`); retry later.', code: 'storage_error', message: 'The store is unavailable; retry later.' },
};

const TAGS = [
  { name: 'Evaluations', description: 'Documents with ground-truth annotations and a JSON schema, and the iterations run over them.' },
  { name: 'Documents', description: 'The documents of an evaluation and their annotations (the ground truth).' },
  { name: 'Iterations', description: 'Runs of extraction over an evaluation\'s documents, with predictions and similarity metrics.' },
  { name: 'Processors', description: 'Named, reusable extraction settings, and extraction of one document at a time.' },
  { name: 'Models', description: 'The models the calling organization can run on this host.' },
  { name: 'Secrets', description: 'The organization\'s model provider keys and custom endpoint, encrypted at rest, never answered.' },
  { name: 'Service', description: 'Liveness, this document and its human-readable reference.' },
];

const DESCRIPTION = `Measures LLM document extraction against ground truth: evaluations (documents with annotations, a JSON
schema, iterations with predictions and similarity metrics) and processors (stored extraction settings).

Every endpoint but \`/health\` and \`/docs\` needs an API key, sent as \`Api-Key: <key>\` or \`Authorization: Bearer <key>\`;
objects belong to the organization of the key that created them. Bodies are JSON; every success is a 200.

A failure answers \`{"error": {"code", "message", "issues"?}}\` (the \`Error\` schema) with the status of its code.
Besides the statuses each operation lists, a known path called with a method it does not take answers 405
\`method_not_allowed\` with an \`Allow\` header listing the methods it takes; an unknown path answers 404.
HEAD is answered wherever GET is, with the headers of the GET and no body.`;

export interface OpenApiDocumentOptions {
  /** Where the API is mounted; becomes the document's server URL. @default '' */
  basePath?: string;
  /** Who to contact about this API: the host running it. @default the docevals maintainers */
  contact?: { name?: string; url?: string; email?: string };
}

/**
 * The OpenAPI 3.1 document of the REST API, generated from the core's zod schemas (described and named in
 * openapi-schemas.ts), so it cannot disagree with what the service accepts. Paths are the interface's (`/v1/...`);
 * the mount point is the server URL. Every resource and shared part is a named component, every operation has a
 * description and an example of its request and answer (operations in openapi-operations.ts).
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
  for (const [name, schema] of NAMED_SCHEMAS) registry.register(name, schema);
  for (const [status, error] of Object.entries(ERRORS)) {
    registry.registerComponent('responses', error.name, {
      description: error.description,
      ...(status === '401'
        ? {
            headers: {
              'WWW-Authenticate': {
                description: 'The authentication schemes the server accepts (RFC 9110, section 11.6.1).',
                schema: { type: 'string' },
              },
            },
          }
        : {}),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          example: { error: { code: error.code, message: error.message, ...(status === '422' ? { issues: [{ path: 'name', message: 'name must not be empty' }] } : {}) } },
        },
      },
    });
  }

  for (const endpoint of ENDPOINTS) {
    const doc = docOf(endpoint);
    registry.registerPath(routeOf(endpoint, doc));
    if (endpoint.method === 'get') registry.registerPath(headRouteOf(endpoint, doc));
  }

  const service = [
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
  for (const route of service) {
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

  // `license.identifier` is OpenAPI 3.1 (SPDX), which the generator's 3.0-era types do not list.
  const config = {
    openapi: '3.1.0',
    info: {
      title: 'docevals',
      version: '1',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
      contact: options.contact ?? { name: 'docevals maintainers', url: 'https://www.npmjs.com/package/@docevals/rest' },
    },
    servers: [{ url: options.basePath || '/', description: 'This server' }],
    security: [{ ApiKey: [] }, { Bearer: [] }],
    tags: TAGS,
  } as Parameters<typeof generator.getOpenAPI31Document>[0];
  const document = generator.getOpenAPI31Document(config) as unknown as Record<string, unknown>;
  flattenAnnotatedRefs(document);
  // The generator always writes `webhooks: {}`; the API has none.
  if (document.webhooks && Object.keys(document.webhooks).length === 0) delete document.webhooks;
  const components = document.components as Record<string, unknown> | undefined;
  if (components?.parameters && Object.keys(components.parameters).length === 0) delete components.parameters;
  return document;
}

/**
 * What the document shows of an endpoint's input and answer: the described schemas and examples of
 * openapi-operations.ts where it has them, else the operation's own schemas (the core's, described there with
 * `.meta({ description })`): an operation needs no entry here to be documented.
 */
function docOf(endpoint: Endpoint): OperationDoc {
  const doc = OPERATION_DOCS[endpoint.operationId];
  const input = operations[endpoint.operation].input;
  const { body } = endpoint;
  return {
    params: doc?.params ?? endpoint.params,
    query: doc?.query ?? endpoint.query,
    body: doc?.body ?? (body && bodyComponent(endpoint.operationId, endpoint.summary, body, input)),
    response: doc?.response ?? componentOf(endpoint.response) ?? endpoint.response,
    formBody: doc?.formBody,
    requestExample: doc?.requestExample ?? (body && bodyExample(body, input)),
    responseExample: doc?.responseExample ?? firstExample(endpoint.response),
  };
}

/** What the core's `.meta()` says of a schema (description, examples). */
const metaOf = (schema: z.ZodType): { description?: string; examples?: unknown } | undefined => z.globalRegistry.get(schema);

/** The first of the core's `.meta({ examples })` of a schema. */
function firstExample(schema: z.ZodType): unknown {
  const examples = metaOf(schema)?.examples;
  return Array.isArray(examples) ? (examples[0] as unknown) : undefined;
}

/**
 * The body of an operation without a restated one, as a component: `<OperationId>Body`, described by the core's
 * input schema (`.meta({ description })`), so every body is named for generators.
 */
function bodyComponent(operationId: string, summary: string, body: z.ZodObject, input: z.ZodType) {
  const name = `${operationId[0]!.toUpperCase()}${operationId.slice(1)}Body`;
  return z.object(body.shape).openapi(name, { description: metaOf(input)?.description ?? `The body of ${summary}.` });
}

/** The first example of the core's input schema (`.meta({ examples })`), less the path parameters. */
function bodyExample(body: z.ZodObject, input: z.ZodType) {
  const example = firstExample(input);
  if (typeof example !== 'object' || example === null) return undefined;
  return Object.fromEntries(Object.entries(example).filter(([key]) => key in body.shape));
}

/** The error statuses an endpoint may answer. */
function errorStatuses(endpoint: Endpoint): number[] {
  // 429: a host's per-key rate limit may refuse any request (docs/spec/limits.md).
  const statuses = [401, 404, 422, 429, 500, 503];
  if (endpoint.body) statuses.push(400, 408, 413, 415);
  if (endpoint.operationId.startsWith('create') || endpoint.operationId.startsWith('update')) statuses.push(409);
  if (endpoint.operationId === 'submitToProcessor' || endpoint.background) statuses.push(502);
  if (endpoint.background && !statuses.includes(409)) statuses.push(409);
  if (endpoint.tag === 'Secrets') statuses.push(501);
  return statuses.sort((a, b) => a - b);
}

function routeOf(endpoint: Endpoint, doc: OperationDoc) {
  const responses: Record<number, unknown> = {};
  for (const status of errorStatuses(endpoint)) responses[status] = errorRef(status);

  return createRoute({
    method: endpoint.method,
    path: endpoint.path,
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: endpoint.description,
    tags: [endpoint.tag],
    request: {
      ...(doc.params ? { params: doc.params } : {}),
      ...(doc.query ? { query: doc.query } : {}),
      ...(doc.body
        ? {
            body: {
              required: !endpoint.bodyOptional,
              description: endpoint.bodyOptional ? 'Optional: an empty body takes every default.' : undefined,
              content: {
                'application/json': { schema: doc.body, example: doc.requestExample },
                ...(doc.formBody ? { 'multipart/form-data': { schema: doc.formBody } } : {}),
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
            content: { 'text/event-stream': { schema: doc.response, example: doc.responseExample } },
          }
        : endpoint.produces
          ? { description: 'A file (Content-Disposition names it)', content: Object.fromEntries(endpoint.produces.fileTypes.map((type) => [type, { schema: z.string(), example: doc.responseExample }])) }
          : { description: endpoint.background ? 'Done (without `background`)' : 'Success', content: { 'application/json': { schema: doc.response, example: doc.responseExample } } },
      ...(endpoint.background
        ? {
            202: {
              description: 'Accepted (`"background": true`): the iteration summary, status `queued` or `running`; `Location` names it',
              headers: { Location: { description: 'The iteration', schema: { type: 'string' as const } } },
              content: { 'application/json': { schema: IterationSummarySchema } },
            },
          }
        : {}),
      ...responses,
    } as RouteConfig['responses'],
  });
}

/** HEAD wherever GET is (Hono answers it with the GET's headers and no body): declared, so nothing answered is undocumented. */
function headRouteOf(endpoint: Endpoint, doc: OperationDoc) {
  const responses: Record<number, { description: string }> = {};
  for (const status of errorStatuses(endpoint)) responses[status] = { description: ERRORS[status]!.description };
  return createRoute({
    method: 'head',
    path: endpoint.path,
    operationId: `${endpoint.operationId}Head`,
    summary: `${endpoint.summary}: headers only`,
    description: `The headers of \`GET ${endpoint.path}\`, without the body.`,
    tags: [endpoint.tag],
    request: {
      ...(doc.params ? { params: doc.params } : {}),
      ...(doc.query ? { query: doc.query } : {}),
    },
    responses: { 200: { description: 'The headers of the GET' }, ...responses },
  });
}

function errorRef(status: number) {
  const error = ERRORS[status];
  if (!error) throw new Error(`createOpenApiDocument: no error response for status ${status}.`);
  return { $ref: `#/components/responses/${error.name}` };
}
