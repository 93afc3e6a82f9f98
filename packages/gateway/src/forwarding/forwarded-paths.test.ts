import { describe, expect, it } from 'vitest';
import { ForwardedPaths, mayResolveElsewhere, ownEndpoints } from './forwarded-paths.js';

const own = ownEndpoints(['/api/webui/auth/check', '/api/webui/keys', '/api/webui/keys/:name', '/api/webui/docs/*', '/api/webui/ws']);

describe('ownEndpoints', () => {
  it("matches this server's routes as Hono does, with or without a trailing slash", () => {
    for (const path of ['/api/webui/auth/check', '/api/webui/keys/', '/api/webui/keys/ci', '/api/webui/docs/a/b', '/api/webui/ws/'])
      expect(own(path), path).toBe(true);
    for (const path of ['/api/webui/auth', '/api/webui/keys/ci/x', '/api/webui/config', '/api/chat']) expect(own(path), path).toBe(false);
  });
});

describe('ForwardedPaths', () => {
  const paths = new ForwardedPaths(
    { paths: ['/api/webui', '/api/chat/'], publicPaths: ['/api/webui/version-compatibility', '/api/chat/assets/*'] },
    own,
  );

  it('forwards what lies under a prefix and is not ours', () => {
    expect(paths.isForwarded('/api/webui/config/bot')).toBe(true);
    expect(paths.isForwarded('/api/chat')).toBe(true);
    expect(paths.isForwarded('/api/webui/auth/check')).toBe(false);
    expect(paths.isForwarded('/api/chatx')).toBe(false);
    expect(paths.isForwarded('/')).toBe(false);
  });

  it('public: listed, read with GET or HEAD, forwarded, and no encoded separator', () => {
    expect(paths.isPublic('/api/webui/version-compatibility', 'GET')).toBe(true);
    expect(paths.isPublic('/api/webui/version-compatibility', 'HEAD')).toBe(true);
    expect(paths.isPublic('/api/webui/version-compatibility', 'POST')).toBe(false);
    expect(paths.isPublic('/api/webui/version-compatibility/x', 'GET')).toBe(false);
    expect(paths.isPublic('/api/chat/assets/app.js', 'GET')).toBe(true);
    expect(paths.isPublic('/api/chat/assets/..%2F..%2Fwebui%2Fkeys', 'GET')).toBe(false);
    expect(paths.isPublic('/api/chat/assets/..%2f', 'GET')).toBe(false);
    expect(paths.isPublic('/api/chat/assets/..\\x', 'GET')).toBe(false);
  });

  it('public: never a path holding ;, a dot segment left after decoding, or NUL (issue 42)', () => {
    for (const path of [
      '/api/chat/assets/x/..;/secret',
      '/api/chat/assets/app.js;v=1',
      '/api/chat/assets/../secret',
      '/api/chat/assets/x/./app.js',
      '/api/chat/assets/..',
      '/api/chat/assets/x\0.js',
    ])
      expect(paths.isPublic(path, 'GET'), path).toBe(false);
    for (const path of ['/api/chat/assets/a..b.js', '/api/chat/assets/.well-known/x', '/api/chat/assets/...'])
      expect(paths.isPublic(path, 'GET'), path).toBe(true);
  });

  it('never makes one of our own endpoints public, whatever public_paths lists', () => {
    const wide = new ForwardedPaths({ paths: ['/'], publicPaths: ['/api/webui/*', '/api/webui/keys'] }, own);
    expect(wide.isPublic('/api/webui/keys', 'GET')).toBe(false);
    expect(wide.isPublic('/api/webui/keys/ci', 'GET')).toBe(false);
    expect(wide.isPublic('/api/webui/config', 'GET')).toBe(true);
  });

  it('gives one pipeline pattern per outermost prefix, the API prefix included', () => {
    expect(paths.guardedPatterns('/api/webui')).toEqual(['/api/webui/*', '/api/chat/*']);
    expect(new ForwardedPaths({ paths: ['/'], publicPaths: [] }, own).guardedPatterns('/api/webui')).toEqual(['/*']);
  });

  it('refuses a prefix Hono would read as a pattern, or one not starting with /', () => {
    for (const bad of ['/api/:id', '/api/*', 'api/chat', '/a{1}'])
      expect(() => new ForwardedPaths({ paths: [bad], publicPaths: [] }, own), bad).toThrow(/webui\.upstream\.paths/);
  });
});

describe("mayResolveElsewhere (Hono's decoded path: %2F kept, %5C and %00 decoded)", () => {
  it.each([
    ['/api/webui/x%2f..%2fadmin', true],
    ['/api/webui/x%2F', true],
    ['/api/webui/x\\..\\admin', true],
    ['/api/webui/x\0', true],
    ['/api/webui/../admin', true],
    ['/api/webui/./x', true],
    ['/api/webui/x/..', true],
    ['/api/webui/config/bot', false],
    ['/api/webui/x..y/.z/...', false],
    ['/api/webui/x;y', false],
    ['/api/webui/100%25', false],
  ])('%s: %s', (path, expected) => {
    expect(mayResolveElsewhere(path)).toBe(expected);
  });
});
