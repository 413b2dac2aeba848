import { DocevalsError } from '../errors.js';

/** How a caller sends a key, as every 401 says it. */
const HOW_TO_SEND = 'send it as "Api-Key: <key>" or "Authorization: Bearer <key>"';

/**
 * The 401 every transport answers when {@link Authenticate} returns null, worded for what the request carried: no
 * key at all (say how to send one), or a key that is not valid (say so, so the caller checks the key rather than
 * the header). Both have the code `unauthorized` (docs/spec/service.md, Authentication).
 *
 * @example
 * const organizationId = await authenticate(request, { transport: 'rest' });
 * if (!organizationId) throw unauthorizedError(readApiKey(request) !== null);
 */
export function unauthorizedError(keySent: boolean): DocevalsError {
  return keySent
    ? new DocevalsError('unauthorized', `The API key sent is not valid: check it (${HOW_TO_SEND}).`)
    : new DocevalsError('unauthorized', `No API key was sent: ${HOW_TO_SEND}.`);
}
