/**
 * What a transport tells {@link Authenticate} besides the request itself.
 */
export interface AuthenticateContext {
  /** Which transport asks: the REST handler or the tRPC context. */
  transport: 'rest' | 'trpc';
  /**
   * The node request (`http.IncomingMessage`, with what Express or Fastify added to it: `req.session`, `req.user`,
   * a parsed `req.cookies`) when the request came in through node: `toNodeHandler` of `@docevals/rest/node`, tRPC's
   * node adapters. Undefined on a fetch runtime (Bun, Deno, workers, `fetchRequestHandler`).
   */
  nodeRequest?: unknown;
}

/**
 * The typed refusal {@link Authenticate} may return instead of `null`: the 401's message and its `WWW-Authenticate`
 * header are then the host's (a session cookie is not a Bearer token). Build it with {@link refuse}.
 */
export interface AuthenticationRefusal {
  readonly refused: true;
  /** The 401's message, sent as `error.message` (code `unauthorized`) by REST and tRPC alike. */
  readonly message: string;
  /**
   * REST's `WWW-Authenticate` header, e.g. `Cookie realm="acme"` or `Bearer realm="acme"`.
   * @default 'Bearer realm="docevals"'
   */
  readonly wwwAuthenticate?: string;
}

/** What {@link Authenticate} returns: an organization id, a refusal with the host's words, or `null` (the API-key 401). */
export type AuthenticationResult = string | AuthenticationRefusal | null;

/**
 * How a transport learns who is calling: from the whole request (headers, cookies, URL) to the caller's organization
 * id; `null` when it carries no valid credentials (the 401 then speaks of API keys), or {@link refuse}`(message,
 * { wwwAuthenticate })` for a 401 in the host's words. Framework-free: REST and tRPC hosts pass the same function.
 * Read the headers, not the body: the body is the operation's.
 *
 * @example
 * // A host's own session cookie
 * const authenticate: Authenticate = async (request) => {
 *   const session = await sessions.find(cookieValue(request.headers.get('cookie'), 'sid'));
 *   return session ? session.organizationId : refuse('Sign in first.', { wwwAuthenticate: 'Cookie realm="acme"' });
 * };
 * // API keys, as the standalone server does
 * const byKey: Authenticate = (request) => keysToOrganizations.get(readApiKey(request) ?? '') ?? null;
 */
export type Authenticate = (request: Request, context: AuthenticateContext) => AuthenticationResult | Promise<AuthenticationResult>;

/**
 * A refusal for {@link Authenticate}: a 401 whose message (and REST `WWW-Authenticate`) is the host's.
 *
 * @example
 * return refuse('Your session has expired: sign in again.', { wwwAuthenticate: 'Cookie realm="acme"' });
 */
export function refuse(message: string, options: { wwwAuthenticate?: string } = {}): AuthenticationRefusal {
  if (typeof message !== 'string' || message.trim() === '') throw new TypeError('refuse: the message must be a non-empty string.');
  return Object.freeze({ refused: true as const, message, ...(options.wwwAuthenticate !== undefined ? { wwwAuthenticate: options.wwwAuthenticate } : {}) });
}

/** Whether `result` is a refusal made by {@link refuse} (of any copy of the core: it is a plain object). */
export function isAuthenticationRefusal(result: unknown): result is AuthenticationRefusal {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { refused?: unknown }).refused === true &&
    typeof (result as { message?: unknown }).message === 'string'
  );
}
