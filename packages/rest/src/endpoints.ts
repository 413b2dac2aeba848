import { documentSummarySchema, type Docevals } from '@docevals/core';
import { operations, type Operation, type OperationName, type RestRoute, type RestTag } from '@docevals/core/internal';
import { z } from 'zod';
import { contentUrlRewrite, type ContentUrlRewrite } from './content-urls.js';

export type HttpMethod = RestRoute['method'];

/**
 * One REST endpoint: where it lives and the operation of the core's table (`operations` of `@docevals/core`) it
 * serves, with the schemas of that operation split the HTTP way (path parameters, then the query or the body) and
 * its one service call. `input` is the body's fields, then the query's, then the path parameters (which win: a body
 * cannot retarget another object). The OpenAPI document describes each from its operation's row, with the
 * described schemas and examples of openapi-operations.ts where it has them.
 */
export interface Endpoint {
  method: HttpMethod;
  /** OpenAPI form, `{name}` for a path parameter. */
  path: string;
  operationId: string;
  summary: string;
  /** What the operation does and answers, for the API reference (the core's row). */
  description: string;
  tag: RestTag;
  /** The operation of the core's table this endpoint serves. */
  operation: OperationName;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** The request body: the operation's input minus the path parameters. */
  body?: z.ZodObject;
  /** A body may be left out entirely (its fields all have defaults). */
  bodyOptional?: boolean;
  /** The body may also come as `multipart/form-data` (read-form-body.ts): the reference SDK's submit. */
  acceptsForm?: boolean;
  response: z.ZodType;
  /**
   * `file`: the call returns an `ExportStream`; the answer is its text streamed with its media type and a
   * `Content-Disposition` file name (the OpenAPI document lists `fileTypes` as the response's media types).
   */
  produces?: { kind: 'file'; fileTypes: readonly string[] };
  /** Media types other than JSON the body may come in, with the input they become (`{ format, content }`). */
  textBodies?: Readonly<Record<string, string>>;
  /** `"background": true` in the body answers 202 with a `Location` (create, process). */
  background?: true;
  /** A Server-Sent Events stream of these events instead of one JSON answer (`streamEvents` is called). */
  sse?: true;
  /** The answer holds document summaries, whose `mime_data.url` the handler puts under its base path with this. */
  contentUrls?: ContentUrlRewrite;
  call(docevals: Docevals, organizationId: string, input: Record<string, unknown>): Promise<unknown>;
}

function withContentUrls(output: z.ZodType): { contentUrls?: ContentUrlRewrite } {
  const rewrite = contentUrlRewrite(output, documentSummarySchema);
  return rewrite ? { contentUrls: rewrite } : {};
}

/** The endpoint of one REST route of an operation: the schemas split from the operation's input, and its call. */
function endpoint(name: OperationName, { input: where, located, file, ...route }: RestRoute): Endpoint {
  const operation = operations[name];
  const input = operation.input instanceof z.ZodOptional ? operation.input.unwrap() : operation.input;
  const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const object: z.ZodObject = input instanceof z.ZodObject ? input : z.object({});
  // zod's mask type refuses number keys, which field names never are.
  const mask = (names: string[]) =>
    Object.fromEntries(names.map((name) => [name, true as const])) as Record<string, true> & Record<number, never>;
  const taken = located ? [...pathNames, 'evaluation_id'] : pathNames;
  const rest = taken.length > 0 ? object.omit(mask(taken)) : object;
  // The core validates `input` at runtime (the transports never check more than "a JSON object"): pass it on.
  const call = operation.call as (docevals: Docevals, organizationId: string, input: unknown) => Promise<unknown>;
  return {
    ...route,
    operation: name,
    ...(file ? { produces: { kind: 'file' as const, fileTypes: file } } : {}),
    ...(pathNames.length > 0 ? { params: object.pick(mask(pathNames)) } : {}),
    ...(where ? { [where]: rest } : {}),
    response: operation.output,
    ...withContentUrls(operation.output),
    call: route.sse
      ? // The stream opens only for an iteration that exists: checked first, so an unknown one is a plain 404.
        (d, org, input) => operations['evals.iterations.getSummary'].call(d, org, input as never)
      : located
        ? async (d, org, input) =>
            call(d, org, { ...input, ...(await d.evals.iterations.locate(org, { iteration_id: input.iteration_id as string })) })
        : call,
  };
}

/**
 * Every endpoint of docs/spec/interface.md section 4 and of docs/spec/service.md's REST paths table: the REST routes
 * the core's operations declare (`rest` of each row of `operations`), in the table's order.
 */
export const ENDPOINTS: readonly Endpoint[] = (Object.entries(operations) as Array<[OperationName, Operation]>).flatMap(
  ([name, operation]) => {
    const routes: readonly RestRoute[] = operation.rest === undefined ? [] : 'path' in operation.rest ? [operation.rest] : operation.rest;
    return routes.map((route) => endpoint(name, route));
  },
);
