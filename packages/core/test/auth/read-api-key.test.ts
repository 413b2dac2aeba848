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
