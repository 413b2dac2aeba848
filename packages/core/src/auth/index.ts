export {
  isAuthenticationRefusal,
  refuse,
  type Authenticate,
  type AuthenticateContext,
  type AuthenticationRefusal,
  type AuthenticationResult,
} from './authenticate.js';
export { readApiKey } from './read-api-key.js';
export { apiKeyAuthenticator, type ApiKeyAuthenticatorOptions } from './api-key-authenticator.js';
export { unauthorizedError } from './unauthorized-error.js';
