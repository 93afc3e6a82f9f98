import { describe, expect, it } from 'vitest';
import { bearerCredential, holdsSeveralCredentials } from './bearer-credential.js';

describe('bearerCredential', () => {
  it.each([
    ['Bearer wk_abc', 'wk_abc'],
    ['bearer token-value', 'token-value'],
    ['BEARER  spaced  ', 'spaced'],
    ['Bearer', ''],
    ['Bearer   ', ''],
  ])('%j -> %j', (header, secret) => expect(bearerCredential(header)).toBe(secret));

  it.each([undefined, '', 'Basic dXNlcjpwYXNz', 'Token abc', 'Bearerabc'])('%j is not a bearer', (header) =>
    expect(bearerCredential(header)).toBeNull(),
  );
});

describe('holdsSeveralCredentials', () => {
  it.each(['Bearer a, Bearer b', 'bearer a, b', 'Basic dXNlcjpwYXNz, Bearer b', 'Bearer a, Basic dXNlcjpwYXNz', 'Bearer a, '])(
    '%j holds several',
    (header) => expect(holdsSeveralCredentials(header)).toBe(true),
  );

  it.each([undefined, 'Bearer a', 'Bearer tok,en', 'Basic a, Basic b', 'Digest username="a", realm="b"'])('%j does not', (header) =>
    expect(holdsSeveralCredentials(header)).toBe(false),
  );
});
