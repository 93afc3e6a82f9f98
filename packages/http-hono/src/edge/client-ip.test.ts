import { describe, expect, it } from 'vitest';
import { resolveClient, UNIX_SOCKET_PEER } from './client-ip.js';
import { cidrs } from '../testing/test-app.js';

/** A header reader over a web Headers, as the app's fallback reads them. */
const headers = (init: Record<string, string>) => {
  const all = new Headers(init);
  return (name: string) => all.get(name) ?? undefined;
};

describe('resolveClient (docs/decisions/0003-client-address.md)', () => {
  it('is the TCP peer when no proxy is trusted, whatever the forwarded headers say', () => {
    const client = resolveClient(
      '198.51.100.7',
      headers({ 'x-forwarded-for': '1.2.3.4', 'x-real-ip': '5.6.7.8', 'x-forwarded-proto': 'https' }),
      [],
    );
    expect(client).toEqual({ ip: '198.51.100.7', forwardedHttps: false, proxyWithoutForwardedFor: false });
  });

  it('ignores forwarded headers from a peer outside trusted_proxies', () => {
    const client = resolveClient(
      '198.51.100.7',
      headers({ 'x-forwarded-for': '1.2.3.4', 'x-forwarded-proto': 'https' }),
      cidrs(['127.0.0.1']),
    );
    expect(client).toEqual({ ip: '198.51.100.7', forwardedHttps: false, proxyWithoutForwardedFor: false });
  });

  it('believes the Unix socket peer as a trusted proxy, walking X-Forwarded-For through trusted_proxies', () => {
    const client = resolveClient(
      UNIX_SOCKET_PEER,
      headers({ 'x-forwarded-for': 'spoofed, 203.0.113.9, 10.0.0.2', 'x-forwarded-proto': 'https' }),
      cidrs(['10.0.0.2']),
    );
    expect(client).toEqual({ ip: '203.0.113.9', forwardedHttps: true, proxyWithoutForwardedFor: false });
    expect(resolveClient(UNIX_SOCKET_PEER, headers({ 'x-forwarded-for': '203.0.113.9, 10.0.0.2' }), []).ip).toBe('10.0.0.2');
  });

  it('counts a Unix socket request without X-Forwarded-For as the local client 127.0.0.1', () => {
    expect(resolveClient(UNIX_SOCKET_PEER, headers({}), [])).toEqual({
      ip: '127.0.0.1',
      forwardedHttps: false,
      proxyWithoutForwardedFor: false,
    });
  });

  it('takes the rightmost untrusted X-Forwarded-For entry behind a trusted peer', () => {
    const client = resolveClient('127.0.0.1', headers({ 'x-forwarded-for': 'spoofed, 203.0.113.9' }), cidrs(['127.0.0.1']));
    expect(client.ip).toBe('203.0.113.9');
  });

  it('walks right to left through several trusted hops', () => {
    const trusted = cidrs(['127.0.0.1', '10.0.0.2', '10.0.0.3']);
    const client = resolveClient('127.0.0.1', headers({ 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.0.0.2, 10.0.0.3' }), trusted);
    expect(client.ip).toBe('203.0.113.9');
  });

  it('stops at the first untrusted hop even when more addresses stand left of it', () => {
    const trusted = cidrs(['127.0.0.1', '10.0.0.3']);
    // 10.0.0.2 is not trusted: it is the client, and whatever it wrote to its left is not believed.
    const client = resolveClient('127.0.0.1', headers({ 'x-forwarded-for': '203.0.113.9, 10.0.0.2, 10.0.0.3' }), trusted);
    expect(client.ip).toBe('10.0.0.2');
  });

  it('trusts whole CIDR ranges', () => {
    const trusted = cidrs(['10.0.0.0/8', '172.16.0.0/12']);
    const client = resolveClient('172.20.1.1', headers({ 'x-forwarded-for': '192.0.2.44, 10.200.3.4, 172.31.255.254' }), trusted);
    expect(client.ip).toBe('192.0.2.44');
    // Just outside 172.16.0.0/12: not a proxy, so its headers are ignored.
    expect(resolveClient('172.32.0.1', headers({ 'x-forwarded-for': '192.0.2.44' }), trusted).ip).toBe('172.32.0.1');
  });

  it('takes the leftmost address when every hop is a trusted proxy', () => {
    const client = resolveClient('10.0.0.1', headers({ 'x-forwarded-for': '10.0.0.9, 10.0.0.8' }), cidrs(['10.0.0.0/8']));
    expect(client.ip).toBe('10.0.0.9');
  });

  it('is the proxy itself when a trusted proxy sends no forwarded address', () => {
    expect(resolveClient('10.0.0.1', headers({}), cidrs(['10.0.0.0/8'])).ip).toBe('10.0.0.1');
    expect(resolveClient('10.0.0.1', headers({ 'x-forwarded-for': ' , ' }), cidrs(['10.0.0.0/8'])).ip).toBe('10.0.0.1');
  });

  it('handles IPv6 peers, hops and trusted ranges, in canonical form', () => {
    const trusted = cidrs(['fd00::/8']);
    const client = resolveClient('fd12::1', headers({ 'x-forwarded-for': '2001:DB8:0:0:0:0:0:1, fd00::5' }), trusted);
    expect(client.ip).toBe('2001:db8::1');
    expect(resolveClient('2001:db8::7', headers({ 'x-forwarded-for': '1.2.3.4' }), trusted).ip).toBe('2001:db8::7');
    expect(resolveClient('fd00::1', headers({ 'x-forwarded-for': '[2001:db8::9]' }), trusted).ip).toBe('2001:db8::9');
  });

  it('normalises IPv4-mapped IPv6 to IPv4, for the peer and for trusted-proxy matching', () => {
    expect(resolveClient('::ffff:127.0.0.5', headers({}), []).ip).toBe('127.0.0.5');
    const client = resolveClient('::ffff:10.1.2.3', headers({ 'x-forwarded-for': '::ffff:203.0.113.9' }), cidrs(['10.0.0.0/8']));
    expect(client.ip).toBe('203.0.113.9');
  });

  it('stops at a garbage entry and keeps the last address it could read', () => {
    const trusted = cidrs(['127.0.0.1', '10.0.0.2']);
    // Garbage left of the real client never matters.
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': 'not-an-ip, 203.0.113.9' }), trusted).ip).toBe('203.0.113.9');
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': '<script>, 999.1.1.1, 203.0.113.9' }), trusted).ip).toBe('203.0.113.9');
    // Garbage right after trusted hops: the walk does not jump over it to a client-written address.
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': '6.6.6.6, garbage, 10.0.0.2' }), trusted).ip).toBe('10.0.0.2');
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': '6.6.6.6, 010.0.0.1' }), trusted).ip).toBe('127.0.0.1');
  });

  it('reads X-Real-IP only from a trusted peer, and only without X-Forwarded-For', () => {
    const trusted = cidrs(['127.0.0.1']);
    expect(resolveClient('127.0.0.1', headers({ 'x-real-ip': '203.0.113.9' }), trusted).ip).toBe('203.0.113.9');
    expect(resolveClient('127.0.0.5', headers({ 'x-real-ip': '203.0.113.9' }), trusted).ip).toBe('127.0.0.5');
    expect(resolveClient('127.0.0.1', headers({ 'x-real-ip': '1.1.1.1', 'x-forwarded-for': '203.0.113.9' }), trusted).ip).toBe(
      '203.0.113.9',
    );
  });

  it('believes X-Forwarded-Proto: https only from a trusted peer, first value, any case', () => {
    const trusted = cidrs(['127.0.0.1']);
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-proto': 'https' }), trusted).forwardedHttps).toBe(true);
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-proto': 'HTTPS, http' }), trusted).forwardedHttps).toBe(true);
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-proto': 'http, https' }), trusted).forwardedHttps).toBe(false);
    expect(resolveClient('127.0.0.1', headers({}), trusted).forwardedHttps).toBe(false);
    expect(resolveClient('127.0.0.9', headers({ 'x-forwarded-proto': 'https' }), trusted).forwardedHttps).toBe(false);
  });

  it('keeps an unknown or unparsable peer as its own client', () => {
    expect(resolveClient(undefined, headers({ 'x-forwarded-for': '1.2.3.4' }), cidrs(['0.0.0.0/0'])).ip).toBe('unknown');
    expect(resolveClient('/run/webui.sock', headers({ 'x-forwarded-for': '1.2.3.4' }), cidrs(['0.0.0.0/0'])).ip).toBe('/run/webui.sock');
  });
});

describe('forwarded hops with ports', () => {
  it('reads 1.2.3.4:5678 and [2001:db8::1]:443 as the addresses, not as garbage', () => {
    const trusted = cidrs(['127.0.0.1']);
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': '203.0.113.9:5678' }), trusted).ip).toBe('203.0.113.9');
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': '[2001:db8::1]:443' }), trusted).ip).toBe('2001:db8::1');
  });
});

describe('resolveClient: whose request a trusted proxy forwards', () => {
  const trusted = cidrs(['127.0.0.1']);
  it('a trusted proxy without a usable X-Forwarded-For is the client itself: its own address, counted like any (issue 31)', () => {
    expect(resolveClient('127.0.0.1', headers({}), trusted)).toEqual({
      ip: '127.0.0.1',
      forwardedHttps: false,
      proxyWithoutForwardedFor: true,
    });
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': ' , ' }), trusted)).toMatchObject({
      ip: '127.0.0.1',
      proxyWithoutForwardedFor: true,
    });
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': 'garbage' }), trusted)).toMatchObject({
      ip: '127.0.0.1',
      proxyWithoutForwardedFor: true,
    });
  });

  it('a usable hop names the client, even when the hop is a trusted address itself', () => {
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': '203.0.113.9' }), trusted)).toMatchObject({
      ip: '203.0.113.9',
      proxyWithoutForwardedFor: false,
    });
    expect(resolveClient('127.0.0.1', headers({ 'x-forwarded-for': '127.0.0.1' }), trusted)).toMatchObject({
      ip: '127.0.0.1',
      proxyWithoutForwardedFor: false,
    });
    expect(resolveClient('127.0.0.1', headers({ 'x-real-ip': '203.0.113.9' }), trusted)).toMatchObject({
      ip: '203.0.113.9',
      proxyWithoutForwardedFor: false,
    });
  });
});
