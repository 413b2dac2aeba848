import type { z } from 'zod';
import type { Docevals } from '../service/docevals.js';

/** The tags the REST API's operations are grouped by (the OpenAPI document's tags). */
export type RestTag = 'Evaluations' | 'Documents' | 'Iterations' | 'Processors' | 'Models' | 'Secrets';

/**
 * Where an operation lives in the REST API: plain facts, no HTTP code (`@docevals/rest` derives its routes and the
 * OpenAPI document from them). The operation's input is split the HTTP way: the path's `{name}` parameters, then
 * the rest of the input from the body or the query (`input`), the path parameters winning.
 */
export interface RestRoute {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form, `{name}` for a path parameter (an input field of that name). */
  readonly path: string;
  /** The OpenAPI operationId: unique across the API. */
  readonly operationId: string;
  readonly tag: RestTag;
  /** One line, for lists of operations. */
  readonly summary: string;
  /** What the operation does and answers, for the API reference (Markdown). */
  readonly description: string;
  /** Where the input's fields other than the path parameters travel (none: the path holds the whole input). */
  readonly input?: 'body' | 'query';
  /** The body may be left out entirely (its fields all have defaults). */
  readonly bodyOptional?: true;
  /** The path names the iteration alone: the evaluation is the iteration record's (404 when none). */
  readonly located?: true;
  /** The body may also come as `multipart/form-data` (the reference SDK's submit). */
  readonly acceptsForm?: true;
  /** `"background": true` in the body answers 202 with a `Location` (create, process). */
  readonly background?: true;
  /** A Server-Sent Events stream of the operation's events instead of one JSON answer. */
  readonly sse?: true;
  /** The answer is a file (an `ExportStream`) of one of these media types, not JSON. */
  readonly file?: readonly string[];
  /** Media types other than JSON the body may come in, with the `format` each becomes (`{ format, content }`). */
  readonly textBodies?: Readonly<Record<string, string>>;
}

/**
 * One operation of the docevals API, declared once: the schema of its input (path parameters included, as snake_case
 * fields), the schema of its answer, the one service call it is, and where it lives in the REST API. The in-process
 * service, the tRPC router, the REST routes and the OpenAPI document all read this declaration (docs/architecture.md).
 */
/** How the tRPC router serves an operation: a query (reads) or a mutation (writes). */
export type ProcedureKind = 'query' | 'mutation';

export interface Operation<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  R = unknown,
  P extends ProcedureKind | undefined = ProcedureKind | undefined,
> {
  /** The input the core validates (the service parses it again itself: a transport may pass it unchecked). */
  readonly input: I;
  /** The answer's shape (for an export, the text of the file; for events, one event). */
  readonly output: O;
  /** The service call, for the caller's organization. */
  readonly call: (docevals: Docevals, organizationId: string, input: z.output<I>) => R;
  /**
   * The REST route(s) serving it; none: the operation is a typed view of another for tRPC and in-process callers
   * (`evals.getSummary` is REST's `GET /v1/evals/{id}?view=summary`, served by `evals.getAny`).
   */
  readonly rest?: RestRoute | readonly RestRoute[];
  /**
   * The tRPC procedure it is, at the row's name (`evals.iterations.get` is `evals.iterations.get`); none: REST's
   * `…Any` form, or a stream the router serves its own way (`export`, `events`).
   */
  readonly procedure?: P;
}

/** An operation whose answer is checked, at compile time, against its output schema. */
export const operation = <
  I extends z.ZodType,
  O extends z.ZodType,
  R extends z.input<O> | Promise<z.input<O>>,
  P extends ProcedureKind | undefined = undefined,
>(
  op: Operation<I, O, R, P>,
): Operation<I, O, R, P> => op;

/** An operation whose call answers something other than the output's JSON: a file stream, an event stream. */
export const streamOperation = <I extends z.ZodType, O extends z.ZodType, R>(op: Operation<I, O, R, undefined>): Operation<I, O, R, undefined> => op;
