const BEARER = /^Bearer[ \t]+(\S.*)$/i;

/**
 * The API key a request carries: the `Api-Key` header, or else the token of `Authorization: Bearer <key>`
 * (docs/spec/service.md, Authentication). Surrounding whitespace is dropped; an empty value counts as no key.
 *
 * @example
 * readApiKey(new Headers({ 'Api-Key': 'sk_123' }));             // 'sk_123'
 * readApiKey(new Headers({ Authorization: 'Bearer sk_123' }));  // 'sk_123'
 * readApiKey(new Headers({ Authorization: 'Basic abc' }));      // null
 */
export function readApiKey(headers: Headers): string | null {
  const apiKey = headers.get('api-key')?.trim();
  if (apiKey) return apiKey;
  const authorization = headers.get('authorization')?.trim();
  if (!authorization) return null;
  const token = BEARER.exec(authorization)?.[1]?.trim();
  return token ? token : null;
}
