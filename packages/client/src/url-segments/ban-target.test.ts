import { describe, expect, it } from 'vitest';
import { banTargetSegment } from './ban-target.js';

describe('banTargetSegment', () => {
  it('percent-encodes the colons and slash of an IPv6 /64 and a CIDR, and leaves addresses and `all` readable', () => {
    expect(banTargetSegment('2001:db8::/64')).toBe('2001%3Adb8%3A%3A%2F64');
    expect(banTargetSegment('10.0.0.0/8')).toBe('10.0.0.0%2F8');
    expect(banTargetSegment('127.0.0.2')).toBe('127.0.0.2');
    expect(banTargetSegment('all')).toBe('all');
  });

  it('refuses targets no path segment can carry: empty, `.` and `..`', () => {
    for (const target of ['', '.', '..']) expect(() => banTargetSegment(target)).toThrow(TypeError);
    // Why: URL parsing resolves a dot segment away, percent-encoded or not.
    expect(new URL('http://h/api/webui/security/bans/%2E%2E').pathname).toBe('/api/webui/security/');
  });
});
