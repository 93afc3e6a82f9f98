import { describe, expect, it } from 'vitest';
import { bearerCredential } from './bearer-credential.js';

describe('bearerCredential', () => {
  it.each([
    ['Bearer wk_abc', 'wk_abc'],
    ['bearer token-value', 'token-value'],
    ['BEARER  spaced  ', 'spaced'],
    ['Bearer', ''],
    ['Bearer   ', ''],
  ])('%j -> %j', (header, secret) => expect(bearerCredential(header)).toBe(secret));

  it.each([undefined, '', 'Basic dXNlcjpwYXNz', 'Token abc', 'Bearerabc'])('%j is not a bearer', (header) => expect(bearerCredential(header)).toBeNull());
});
