/**
 * How a transport learns who is calling: from the request headers to the caller's organization id, or `null` when
 * the request carries no valid credentials (the transport answers 401). Framework-free: REST and tRPC hosts pass
 * the same function.
 *
 * @example
 * const authenticate: Authenticate = async (headers) => {
 *   const key = readApiKey(headers);
 *   return key ? await lookUpOrganization(key) : null;
 * };
 */
export type Authenticate = (headers: Headers) => string | null | Promise<string | null>;
