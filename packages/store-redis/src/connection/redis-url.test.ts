import { describe, expect, it } from 'vitest';
import { parseRedisUrl, redactStoreUrl } from './redis-url.js';

describe('redactStoreUrl', () => {
  it.each([
    ['redis://:s3cret@host:6379/2', 'redis://:***@host:6379/2'],
    ['rediss://user:s3cret@redis.example:6380/0', 'rediss://user:***@redis.example:6380/0'],
    ['redis://:p%40ss%2Fword@10.0.0.5:6379', 'redis://:***@10.0.0.5:6379'],
    ['redis://127.0.0.1:6379/0', 'redis://127.0.0.1:6379/0'],
    ['redis://user@host:6379', 'redis://user@host:6379'],
    ['redis://[::1]:6379/1', 'redis://[::1]:6379/1'],
    ['redis-cluster://:s3cret@10.0.0.1:7000,10.0.0.2:7000', 'redis-cluster://:***@10.0.0.1:7000,10.0.0.2:7000'],
    ['rediss-cluster://app:p%40ss@a:7000,b:7001/', 'rediss-cluster://app:***@a:7000,b:7001/'],
    ['redis-cluster://app@a:7000,b:7001', 'redis-cluster://app@a:7000,b:7001'],
    ['redis-cluster://a:7000', 'redis-cluster://a:7000'],
  ])('%s -> %s', (url, redacted) => {
    expect(redactStoreUrl(url)).toBe(redacted);
  });

  it('hides what may be a password in something that is not a URL at all', () => {
    expect(redactStoreUrl('//:s3cret@host:6379')).toBe('//***@host:6379');
    expect(redactStoreUrl('not a url')).toBe('not a url');
  });
});

describe('parseRedisUrl', () => {
  it('reads host, port, database, credentials and TLS', () => {
    expect(parseRedisUrl('redis://:s3cret@127.0.0.1:6390/3')).toEqual({
      ok: true,
      value: { tls: false, host: '127.0.0.1', port: 6390, db: 3, password: 's3cret', address: 'redis://:***@127.0.0.1:6390/3' },
    });
    expect(parseRedisUrl('rediss://app:p%40ss@redis.example')).toEqual({
      ok: true,
      value: {
        tls: true,
        host: 'redis.example',
        port: 6379,
        db: 0,
        username: 'app',
        password: 'p@ss',
        address: 'rediss://app:***@redis.example',
      },
    });
    expect(parseRedisUrl('redis://[::1]/')).toEqual({
      ok: true,
      value: { tls: false, host: '::1', port: 6379, db: 0, address: 'redis://[::1]/' },
    });
  });

  it('reads the seed nodes, credentials and TLS of a cluster URL', () => {
    expect(parseRedisUrl('redis-cluster://:s3cret@10.0.0.1:7000,10.0.0.2,[::1]:7002')).toEqual({
      ok: true,
      value: {
        tls: false,
        host: '10.0.0.1',
        port: 7000,
        nodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: '10.0.0.2', port: 6379 },
          { host: '::1', port: 7002 },
        ],
        db: 0,
        password: 's3cret',
        address: 'redis-cluster://:***@10.0.0.1:7000,10.0.0.2,[::1]:7002',
      },
    });
    expect(parseRedisUrl('rediss-cluster://app:p%40ss@redis-1.example:7000/')).toMatchObject({
      ok: true,
      value: { tls: true, nodes: [{ host: 'redis-1.example', port: 7000 }], username: 'app', password: 'p@ss' },
    });
  });

  it.each([
    ['redis-cluster://a:7000,b:7001/1', /database or query parameters/],
    ['redis-cluster://a:7000?x=1', /database or query parameters/],
    ['redis-cluster://a:7000,,b:7001', /invalid node ""/],
    ['redis-cluster://:s3cret@a:7000,b:99999', /invalid node "b:99999"/],
    ['redis-cluster://', /invalid node ""/],
  ])('refuses the cluster URL %s, never showing its password', (url, message) => {
    const parsed = parseRedisUrl(url);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toMatch(message);
      expect(parsed.error).not.toContain('s3cret');
    }
  });

  it.each([
    ['file', /is not a URL/],
    ['http://host:6379', /must start with redis:\/\/ or rediss:\/\//],
    ['unix:///run/redis.sock', /must start with redis:\/\/ or rediss:\/\//],
    ['redis://host:6379/zero', /invalid database number "zero"/],
    ['redis://host:6379/0?family=6', /query parameters/],
    ['redis://', /names no host/],
  ])('refuses %s', (url, message) => {
    const parsed = parseRedisUrl(url);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });

  it('never shows the password of a URL it refuses', () => {
    const parsed = parseRedisUrl('http://:s3cret@host:6379');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).not.toContain('s3cret');
      expect(parsed.error).toContain('http://:***@host:6379');
    }
  });
});
