import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from './constant-time-equal.js';

describe('constantTimeEqual', () => {
  it('equal strings match', () => {
    expect(constantTimeEqual('secret-token', 'secret-token')).toBe(true);
    expect(constantTimeEqual('x', 'x')).toBe(true);
    expect(constantTimeEqual('\u4e2d\u6587-\u{1f600}', '\u4e2d\u6587-\u{1f600}')).toBe(true);
  });

  it('a prefix of the secret does not match', () => {
    expect(constantTimeEqual('secret', 'secret-token')).toBe(false);
    expect(constantTimeEqual('secret-toke', 'secret-token')).toBe(false);
  });

  it('a longer candidate does not match, even when it repeats the secret', () => {
    expect(constantTimeEqual('secret-token!', 'secret-token')).toBe(false);
    expect(constantTimeEqual('abab', 'ab')).toBe(false);
    expect(constantTimeEqual('aaaa', 'a')).toBe(false);
  });

  it('an empty secret never matches anything, the empty string included', () => {
    expect(constantTimeEqual('', '')).toBe(false);
    expect(constantTimeEqual('\u0000', '')).toBe(false);
    expect(constantTimeEqual('anything', '')).toBe(false);
  });

  it('an empty candidate does not match a real secret', () => {
    expect(constantTimeEqual('', 'secret-token')).toBe(false);
  });

  it('one differing character anywhere is a mismatch', () => {
    const secret = 'secret-token';
    for (let i = 0; i < secret.length; i++) {
      const candidate = `${secret.slice(0, i)}${String.fromCharCode(secret.charCodeAt(i) ^ 1)}${secret.slice(i + 1)}`;
      expect(constantTimeEqual(candidate, secret), candidate).toBe(false);
    }
    expect(constantTimeEqual('Secret-token', 'secret-token')).toBe(false);
    expect(constantTimeEqual('\u0100', '\u0000')).toBe(false);
  });

  it('the same length with different content does not match', () => {
    expect(constantTimeEqual('aaaaaaaaaaaa', 'secret-token')).toBe(false);
  });
});
