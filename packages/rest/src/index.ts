export {
  createRestHandler,
  DEFAULT_MAX_BODY_BYTES,
  type RestHandler,
  type RestHandlerOptions,
  type RestLimits,
  type RestRequestContext,
} from './create-rest-handler.js';
export { errorResponse, statusOf, STATUS_BY_CODE } from './error-response.js';
export { createOpenApiDocument, type OpenApiDocumentOptions } from './openapi-document.js';
export { ENDPOINTS, type Endpoint, type HttpMethod } from './endpoints.js';
