import { describe, expect, it } from 'vitest';
import { readApiKey } from '../../src/auth/read-api-key.js';

describe('readApiKey', () => {
  it('reads the Api-Key header', () => {
    expect(readApiKey(new Headers({ 'Api-Key': 'sk_1' }))).toBe('sk_1');
    expect(readApiKey(new Headers({ 'api-key': '  sk_1  ' }))).toBe('sk_1');
  });

  it('reads an Authorization Bearer token, whatever the case of the scheme', () => {
    expect(readApiKey(new Headers({ Authorization: 'Bearer sk_2' }))).toBe('sk_2');
    expect(readApiKey(new Headers({ Authorization: 'bearer   sk_2 ' }))).toBe('sk_2');
  });

  it('prefers Api-Key when both are present', () => {
    expect(readApiKey(new Headers({ 'Api-Key': 'a', Authorization: 'Bearer b' }))).toBe('a');
  });

  it('returns null without a usable key', () => {
    expect(readApiKey(new Headers())).toBeNull();
    expect(readApiKey(new Headers({ 'Api-Key': '   ' }))).toBeNull();
    expect(readApiKey(new Headers({ Authorization: 'Basic dXNlcjpwYXNz' }))).toBeNull();
    expect(readApiKey(new Headers({ Authorization: 'Bearer' }))).toBeNull();
    expect(readApiKey(new Headers({ Authorization: 'Bearer   ' }))).toBeNull();
  });
});

describe('readApiKey on a Request', () => {
  it('reads the key from the request headers', () => {
    expect(readApiKey(new Request('http://x/v1/evals', { headers: { 'Api-Key': 'sk_r' } }))).toBe('sk_r');
    expect(readApiKey(new Request('http://x/v1/evals', { headers: { Authorization: 'Bearer sk_s' } }))).toBe('sk_s');
    expect(readApiKey(new Request('http://x/v1/evals?api_key=sk_t'))).toBeNull(); // never from the URL
  });
});
