export { createDocevalsRouter, type CreateDocevalsRouterOptions, type DocevalsRouter } from './create-docevals-router.js';
export {
  createDocevalsContext,
  DEFAULT_MAX_BATCH_ANSWER_BYTES,
  toHeaders,
  type CreateDocevalsContextOptions,
  type DocevalsContext,
  type DocevalsContextRequest,
  type NodeRequestHeaders,
} from './create-docevals-context.js';
export { formatDocevalsError, type DocevalsErrorData, type DocevalsErrorShape } from './error-formatter.js';
export { TRPC_CODE_BY_ERROR_CODE, INTERNAL_ERROR_MESSAGE, errorCodeForTRPCCode, toTRPCError } from './error-table.js';
export {
  createDocevalsFetchHandler,
  type DocevalsFetchHandlerLimits,
  type DocevalsFetchHandlerOptions,
} from './create-docevals-fetch-handler.js';
