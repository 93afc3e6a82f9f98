import { describe, expect, it } from 'vitest';
import { anyCidrContains, cidrContains, parseCidr, type Cidr } from './cidr.js';
import { parseIp, type IpAddress } from './ip-address.js';

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`did not parse: ${text}`);
  return parsed;
}

function ip(text: string): IpAddress {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`did not parse: ${text}`);
  return parsed;
}

function contains(network: string, address: string): boolean {
  return cidrContains(cidr(network), ip(address));
}

describe('parseCidr', () => {
  it('parses IPv4 and IPv6 networks', () => {
    expect(cidr('10.0.0.0/8')).toEqual({ network: ip('10.0.0.0'), prefixLength: 8 });
    expect(cidr('2001:db8::/32')).toEqual({ network: ip('2001:db8::'), prefixLength: 32 });
    expect(cidr(' 192.168.0.0/16 ').prefixLength).toBe(16);
  });

  it('reads a bare address as a network of one', () => {
    expect(cidr('192.0.2.1').prefixLength).toBe(32);
    expect(cidr('::1').prefixLength).toBe(128);
    expect(cidr('::ffff:192.0.2.1')).toEqual({ network: ip('192.0.2.1'), prefixLength: 32 });
  });

  it('accepts the prefix boundaries', () => {
    expect(cidr('0.0.0.0/0').prefixLength).toBe(0);
    expect(cidr('192.0.2.1/32').prefixLength).toBe(32);
    expect(cidr('::/0').prefixLength).toBe(0);
    expect(cidr('::1/128').prefixLength).toBe(128);
  });

  it('keeps the meaning of an IPv4-mapped network written in IPv6 form', () => {
    expect(cidr('::ffff:10.0.0.0/104')).toEqual({ network: ip('10.0.0.0'), prefixLength: 8 });
    expect(cidr('::ffff:0.0.0.0/96')).toEqual({ network: ip('0.0.0.0'), prefixLength: 0 });
    expect(parseCidr('::ffff:10.0.0.0/95')).toBeNull();
    expect(parseCidr('::ffff:10.0.0.0/129')).toBeNull();
  });

  it('rejects a bad prefix or address', () => {
    const bad = [
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0.0/+8',
      '10.0.0.0/8/8',
      '10.0.0.0/abc',
      '10.0.0.0/1234',
      '10.0.0.0/8.0',
      '10.0.0.0/ 8',
      'garbage/8',
      '/8',
      '',
      '256.0.0.0/8',
      '01.0.0.0/8',
      ':::/64',
      '2001:db8::/1e2',
    ];
    for (const text of bad) expect(parseCidr(text), JSON.stringify(text)).toBeNull();
  });
});

describe('cidrContains', () => {
  it('IPv4 edges', () => {
    expect(contains('192.168.1.0/24', '192.168.1.0')).toBe(true);
    expect(contains('192.168.1.0/24', '192.168.1.255')).toBe(true);
    expect(contains('192.168.1.0/24', '192.168.0.255')).toBe(false);
    expect(contains('192.168.1.0/24', '192.168.2.0')).toBe(false);
    expect(contains('10.0.0.0/8', '10.255.255.255')).toBe(true);
    expect(contains('10.0.0.0/8', '11.0.0.0')).toBe(false);
    expect(contains('10.0.0.128/25', '10.0.0.128')).toBe(true);
    expect(contains('10.0.0.128/25', '10.0.0.127')).toBe(false);
    expect(contains('172.16.0.0/12', '172.31.255.255')).toBe(true);
    expect(contains('172.16.0.0/12', '172.32.0.0')).toBe(false);
  });

  it('IPv4 /0 holds every IPv4 address, /32 only one', () => {
    expect(contains('0.0.0.0/0', '255.255.255.255')).toBe(true);
    expect(contains('0.0.0.0/0', '::1')).toBe(false);
    expect(contains('192.0.2.1/32', '192.0.2.1')).toBe(true);
    expect(contains('192.0.2.1/32', '192.0.2.2')).toBe(false);
    expect(contains('192.0.2.1', '192.0.2.1')).toBe(true);
  });

  it('ignores host bits in the network', () => {
    expect(contains('10.1.2.3/8', '10.9.9.9')).toBe(true);
  });

  it('IPv6 edges, including a prefix that is not a multiple of 8', () => {
    expect(contains('2001:db8::/32', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff')).toBe(true);
    expect(contains('2001:db8::/32', '2001:db9::')).toBe(false);
    expect(contains('2001:db8:8000::/33', '2001:db8:8000::')).toBe(true);
    expect(contains('2001:db8:8000::/33', '2001:db8:ffff::1')).toBe(true);
    expect(contains('2001:db8:8000::/33', '2001:db8:7fff:ffff::')).toBe(false);
    expect(contains('fd00::/8', 'fdff::1')).toBe(true);
    expect(contains('fd00::/8', 'fc00::1')).toBe(false);
    expect(contains('fe80::/10', 'febf::1')).toBe(true);
    expect(contains('fe80::/10', 'fec0::1')).toBe(false);
    expect(contains('::/0', '2001:db8::1')).toBe(true);
    expect(contains('::/0', '1.2.3.4')).toBe(false);
    expect(contains('::1/128', '::1')).toBe(true);
    expect(contains('::1/128', '::2')).toBe(false);
  });

  it('IPv4-mapped clients match IPv4 networks, and mapped networks match IPv4 clients', () => {
    expect(contains('10.0.0.0/8', '::ffff:10.1.2.3')).toBe(true);
    expect(contains('::ffff:10.0.0.0/104', '10.1.2.3')).toBe(true);
    expect(contains('::ffff:10.0.0.0/104', '11.1.2.3')).toBe(false);
  });
});

describe('anyCidrContains', () => {
  it('is true when one network holds the address, false for an empty list', () => {
    const networks = ['127.0.0.0/8', '::1', '10.0.0.0/8'].map(cidr);
    expect(anyCidrContains(networks, ip('10.2.3.4'))).toBe(true);
    expect(anyCidrContains(networks, ip('::1'))).toBe(true);
    expect(anyCidrContains(networks, ip('192.0.2.1'))).toBe(false);
    expect(anyCidrContains([], ip('127.0.0.1'))).toBe(false);
  });
});
