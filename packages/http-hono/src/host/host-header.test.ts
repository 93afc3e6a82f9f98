import { describe, expect, it } from 'vitest';
import { isCanonicalHost, isWellFormedHost, namesLoopback, splitHost } from './host-header.js';

describe('Host headers', () => {
  it('splits a Host into its lower-cased name and port, and never fails', () => {
    expect(splitHost('LocalHost:8001')).toEqual({ name: 'localhost', port: '8001' });
    expect(splitHost(' [::1]:8001 ')).toEqual({ name: '[::1]', port: '8001' });
    expect(splitHost('[::1]')).toEqual({ name: '[::1]', port: undefined });
    expect(splitHost('[::1]junk')).toEqual({ name: '[::1]', port: 'junk' });
    expect(splitHost('::1')).toEqual({ name: '::1', port: undefined });
    expect(splitHost('[::1')).toEqual({ name: '', port: '[::1' });
    expect(splitHost('')).toEqual({ name: '', port: undefined });
  });

  it('tells a well-formed Host (or allowed_hosts entry) from a malformed one', () => {
    for (const host of ['localhost', 'LOCALHOST:8001', 'example.org.', '127.0.0.1:80', '[::1]', '[2001:DB8::1]:65535', 'a-b.example']) {
      expect(isWellFormedHost(host), host).toBe(true);
    }
    for (const host of [
      '',
      ' localhost',
      'localhost:',
      'localhost:65536',
      'localhost:8o',
      '::1',
      '[::1]junk',
      '[127.0.0.1]',
      '127.1',
      'a_b',
      'exa mple',
      '-a.example',
      'a:b:c',
    ]) {
      expect(isWellFormedHost(host), host).toBe(false);
    }
  });

  it('knows the names of this machine', () => {
    for (const name of ['localhost', 'LOCALHOST', 'app.localhost', '127.0.0.1', '127.9.9.9', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(namesLoopback(name), name).toBe(true);
    for (const name of ['localhost.evil.example', '128.0.0.1', '::2', '[::2]', '10.0.0.1', ''])
      expect(namesLoopback(name), name).toBe(false);
  });

  it('calls canonical only a Host that URL parsing leaves as written', () => {
    for (const host of ['localhost', 'localhost:8001', '127.0.0.1:8001', '[::1]:8001', '[2001:db8::1]', 'example.org.', 'a1.b2']) {
      expect(isCanonicalHost(host), host).toBe(true);
      expect(new URL(`http://${host}/`).host.replace(/:\d+$/, ''), host).toBe(host.replace(/:\d+$/, ''));
    }
    for (const host of [
      'LOCALHOST',
      '127.1',
      '[0::1]',
      '[::ffff:127.0.0.1]',
      'example.123',
      'example.0x1f',
      'xn--zz.example',
      '127.0.0.1, evil.example',
      'localhost:99999',
    ]) {
      expect(isCanonicalHost(host), host).toBe(false);
    }
  });
});
