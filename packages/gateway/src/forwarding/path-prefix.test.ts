import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUnderPrefix, outermostPrefixes, prefixBase } from './path-prefix.js';

describe('path prefixes, matched by whole segments', () => {
  it('holds the prefix itself and what lies under it, not a longer segment', () => {
    expect(isUnderPrefix('/api/chat', '/api/chat')).toBe(true);
    expect(isUnderPrefix('/api/chat/', '/api/chat')).toBe(true);
    expect(isUnderPrefix('/api/chat/x/y', '/api/chat/')).toBe(true);
    expect(isUnderPrefix('/api/chatx', '/api/chat')).toBe(false);
    expect(isUnderPrefix('/api', '/api/chat')).toBe(false);
    expect(isUnderPrefix('/anything', '/')).toBe(true);
    expect(prefixBase('/api/chat//')).toBe('/api/chat');
    expect(prefixBase('/')).toBe('/');
  });

  it('keeps only the outermost prefixes, so a path meets each pipeline step once', () => {
    expect(outermostPrefixes(['/api/webui', '/api/webui/', '/api/chat', '/api/chat/x'])).toEqual(['/api/webui', '/api/chat']);
    expect(outermostPrefixes(['/api/webui', '/api'])).toEqual(['/api']);
    expect(outermostPrefixes(['/api/webui', '/'])).toEqual(['/']);
  });

  it('every path under some prefix lies under exactly one outermost prefix', () => {
    const segment = fc.constantFrom('api', 'webui', 'chat', 'x', 'chatx');
    const path = fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 5 }), path, (prefixes, candidate) => {
        const outer = outermostPrefixes(prefixes);
        const holding = outer.filter((prefix) => isUnderPrefix(candidate, prefix));
        const underAny = prefixes.some((prefix) => isUnderPrefix(candidate, prefix));
        expect(holding.length).toBe(underAny ? 1 : 0);
      }),
      { seed: 33, numRuns: 500 },
    );
  });
});
