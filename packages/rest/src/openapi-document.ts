import { operations } from '@docevals/core/internal';
import { createRoute, OpenAPIHono, z, type RouteConfig } from '@hono/zod-openapi';
import { ENDPOINTS, type Endpoint } from './endpoints.js';
import { ERRORS, errorRef } from './openapi-errors.js';
import { OPERATION_DOCS, type OperationDoc } from './openapi-operations.js';
import { flattenAnnotatedRefs } from './openapi-refs.js';
import { NAMED_SCHEMAS, componentOf } from './openapi-named.js';
import { IterationSummarySchema } from './openapi-schemas.js';
import { registerServiceRoutes } from './openapi-service.js';

type Registry = OpenAPIHono['openAPIRegistry'];

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
  registerComponents(registry);
  for (const endpoint of ENDPOINTS) {
    const doc = docOf(endpoint);
    registry.registerPath(routeOf(endpoint, doc));
    if (endpoint.method === 'get') registry.registerPath(headRouteOf(endpoint, doc));
  }
  registerServiceRoutes(registry);
  return documentOf(generator, options);
}

/** The shared components: the two security schemes, every named schema, every error response. */
function registerComponents(registry: Registry): void {
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
}

/** The generated document with the API's info, servers and tags, less what the generator writes empty. */
function documentOf(generator: OpenAPIHono, options: OpenApiDocumentOptions): Record<string, unknown> {
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
  const document = { ...generator.getOpenAPI31Document(config) };
  flattenAnnotatedRefs(document);
  // The generator always writes `webhooks: {}`; the API has none.
  if (document.webhooks && Object.keys(document.webhooks).length === 0) delete document.webhooks;
  if (document.components?.parameters && Object.keys(document.components.parameters).length === 0) delete document.components.parameters;
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

