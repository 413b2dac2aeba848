import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one HTTP request learns while it runs, for its log line and its metrics: the request id, and the service
 * operations it called with the caller's organization (filled in when the core opens an operation's span, see
 * metrics.ts). The transports need not know about it.
 */
export interface RequestInfo {
  requestId: string;
  operations: string[];
  organization?: string;
  iterationId?: string;
}

export const requestContext = new AsyncLocalStorage<RequestInfo>();
