import type { ErrorCode, ErrorIssue } from '@docevals/core';
import type { TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODE_NUMBER, TRPCError } from '@trpc/server';
import { docevalsErrorOf, errorCodeForTRPCCode, INTERNAL_ERROR_MESSAGE } from './error-table.js';

/** `error.data` of every docevals tRPC error, as the typed client sees it. */
export interface DocevalsErrorData {
  /** tRPC's own error code (`NOT_FOUND`, `UNAUTHORIZED`, `BAD_REQUEST`, ...), as every tRPC client and tool reads it. */
  code: TRPC_ERROR_CODE_KEY;
  /** The docevals error code (`not_found`, `validation_error`, ...): the same `code` the REST API sends. */
  docevalsCode: ErrorCode;
  /** The HTTP status tRPC answered with. */
  httpStatus: number;
  /** The procedure's path (`evals.iterations.create`), when the error came from one. */
  path?: string;
  /** Every validation problem with its dotted path (`documents.0.mime_data.url`); `validation_error` only. */
  issues?: ErrorIssue[];
  /** The kept iteration of a run whose every document failed (`extractor_error` from `iterations.create`/`process`). */
  iteration_id?: string;
  /** Seconds after which a retry may pass: `rate_limited` only. */
  retry_after?: number;
}

/** The error shape of the docevals router: tRPC's JSON-RPC shape with {@link DocevalsErrorData}. */
export interface DocevalsErrorShape {
  message: string;
  /** The JSON-RPC code of tRPC's error code (`-32004` for NOT_FOUND). */
  code: TRPC_ERROR_CODE_NUMBER;
  data: DocevalsErrorData;
}

/** What the formatter reads of tRPC's default shape. */
interface DefaultShape {
  message: string;
  code: TRPC_ERROR_CODE_NUMBER;
  data: { code: TRPC_ERROR_CODE_KEY; httpStatus: number; path?: string };
}

/**
 * The `errorFormatter` of the docevals router. `data.code` and `data.httpStatus` stay tRPC's own (`NOT_FOUND`, 404),
 * so `err.data?.code === 'NOT_FOUND'` works as in any tRPC API; `data.docevalsCode` is the docevals code (the REST
 * API's `error.code`), `data.issues` lists validation problems, an unexpected error says nothing about the server,
 * and `data.stack` is never sent, in development included.
 *
 * @example
 * initTRPC.context<DocevalsContext>().create({ errorFormatter: formatDocevalsError });
 */
export function formatDocevalsError({ shape, error }: { shape: DefaultShape; error: TRPCError }): DocevalsErrorShape {
  const cause = docevalsErrorOf(error);
  const internal = error.code === 'INTERNAL_SERVER_ERROR';
  const data: DocevalsErrorData = {
    code: error.code,
    docevalsCode: cause?.code ?? errorCodeForTRPCCode(error.code, shape.data.httpStatus),
    httpStatus: shape.data.httpStatus,
    ...(shape.data.path === undefined ? {} : { path: shape.data.path }),
    ...(cause?.issues ? { issues: cause.issues } : {}),
    ...(cause?.iteration_id !== undefined ? { iteration_id: cause.iteration_id } : {}),
    ...(cause?.retry_after !== undefined ? { retry_after: cause.retry_after } : {}),
  };
  return { message: internal ? INTERNAL_ERROR_MESSAGE : shape.message, code: shape.code, data };
}
