const BEARER = /^Bearer[ \t]+(\S.*)$/i;

/**
 * The API key a request carries: the `Api-Key` header, or else the token of `Authorization: Bearer <key>`
 * (docs/spec/service.md, Authentication). Surrounding whitespace is dropped; an empty value counts as no key.
 * Takes the request or its headers.
 *
 * @example
 * readApiKey(new Request('http://x/v1/evals', { headers: { 'Api-Key': 'sk_123' } })); // 'sk_123'
 * readApiKey(new Headers({ 'Api-Key': 'sk_123' }));             // 'sk_123'
 * readApiKey(new Headers({ Authorization: 'Bearer sk_123' }));  // 'sk_123'
 * readApiKey(new Headers({ Authorization: 'Basic abc' }));      // null
 */
export function readApiKey(source: Headers | Request): string | null {
  const headers = 'url' in source && typeof source.url === 'string' ? (source as Request).headers : (source as Headers);
  const apiKey = headers.get('api-key')?.trim();
  if (apiKey) return apiKey;
  const authorization = headers.get('authorization')?.trim();
  if (!authorization) return null;
  const token = BEARER.exec(authorization)?.[1]?.trim();
  return token ? token : null;
}
