import { describe, expect, it } from 'vitest';
import { addressIn, banTargetMatches, parseBanTarget, type BanTarget } from './ban-target.js';
import { parseCidr, type Cidr } from '../../net/cidr.js';
import { parseIp } from '../../net/ip-address.js';

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`did not parse: ${text}`);
  return parsed;
}

function target(text: string): BanTarget {
  const parsed = parseBanTarget(text);
  if (!parsed) throw new Error(`no target: ${text}`);
  return parsed;
}

const matches = (targetText: string, key: string): boolean => banTargetMatches(target(targetText), key);

describe('parseBanTarget', () => {
  it('reads `all` in any case and with surrounding spaces', () => {
    for (const text of ['all', 'ALL', 'All', '  all\t']) expect(parseBanTarget(text), text).toEqual({ kind: 'all' });
  });

  it('reads an IPv4 address as a network of one', () => {
    expect(parseBanTarget('203.0.113.7')).toEqual({ kind: 'network', cidr: { network: parseIp('203.0.113.7'), prefixLength: 32 } });
  });

  it('reads an IPv6 address as a network of one', () => {
    expect(parseBanTarget('2001:db8:1:2::abcd')).toEqual({
      kind: 'network',
      cidr: { network: parseIp('2001:db8:1:2::abcd'), prefixLength: 128 },
    });
  });

  it('reads IPv4 and IPv6 CIDRs', () => {
    expect(parseBanTarget('198.51.100.0/24')).toEqual({ kind: 'network', cidr: cidr('198.51.100.0/24') });
    expect(parseBanTarget('2001:db8:1::/48')).toEqual({ kind: 'network', cidr: { network: parseIp('2001:db8:1::'), prefixLength: 48 } });
  });

  it('reads an IPv6 /64 key as listed as the network it names', () => {
    expect(parseBanTarget('2001:db8:1:2::/64')).toEqual({
      kind: 'network',
      cidr: { network: parseIp('2001:db8:1:2::'), prefixLength: 64 },
    });
  });

  it('normalises an IPv4-mapped IPv6 address to IPv4, as client keys are', () => {
    expect(parseBanTarget('::ffff:192.0.2.1')).toEqual({ kind: 'network', cidr: { network: parseIp('192.0.2.1'), prefixLength: 32 } });
    expect(parseBanTarget('::ffff:192.0.2.0/120')).toEqual({ kind: 'network', cidr: cidr('192.0.2.0/24') });
  });

  it('keeps anything else (a Unix socket peer) as an exact key, trimmed', () => {
    expect(parseBanTarget('unix:/run/webui.sock')).toEqual({ kind: 'key', key: 'unix:/run/webui.sock' });
    expect(parseBanTarget(' peer-name ')).toEqual({ kind: 'key', key: 'peer-name' });
  });

  it('refuses an empty text, spaces only, and text with inner whitespace', () => {
    for (const text of ['', ' ', '\t\n', '10.0.0.1 10.0.0.2', 'all of them']) expect(parseBanTarget(text), JSON.stringify(text)).toBeNull();
  });
});

describe('banTargetMatches', () => {
  it('`all` matches IPv4, IPv6 and non-IP keys', () => {
    for (const key of ['203.0.113.7', '2001:db8:1:2::/64', 'unix:/run/webui.sock']) expect(matches('all', key), key).toBe(true);
  });

  it('an IPv4 key matches a CIDR that holds it and no other', () => {
    expect(matches('198.51.100.0/24', '198.51.100.1')).toBe(true);
    expect(matches('198.51.100.0/24', '198.51.100.255')).toBe(true);
    expect(matches('198.51.100.0/24', '198.51.101.0')).toBe(false);
    expect(matches('198.51.100.7', '198.51.100.7')).toBe(true);
    expect(matches('198.51.100.7', '198.51.100.8')).toBe(false);
  });

  it('an IPv4 key never matches an IPv6 target, and an IPv6 key never an IPv4 one', () => {
    expect(matches('::/0', '198.51.100.1')).toBe(false);
    expect(matches('0.0.0.0/0', '2001:db8:1:2::/64')).toBe(false);
  });

  it('an IPv6 /64 key matches a wider target that holds it', () => {
    expect(matches('2001:db8:1::/48', '2001:db8:1:2::/64')).toBe(true);
    expect(matches('2001:db8:2::/48', '2001:db8:1:2::/64')).toBe(false);
    expect(matches('2001:db8:1:2::/64', '2001:db8:1:2::/64')).toBe(true);
  });

  it('an IPv6 /64 key matches a narrower target inside it: one address lifts its /64', () => {
    expect(matches('2001:db8:1:2::abcd', '2001:db8:1:2::/64')).toBe(true);
    expect(matches('2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64')).toBe(true);
    expect(matches('2001:db8:1:2:8000::/65', '2001:db8:1:2::/64')).toBe(true);
  });

  it('an IPv6 /64 key does not match an address or narrower network outside it', () => {
    expect(matches('2001:db8:1:3::abcd', '2001:db8:1:2::/64')).toBe(false);
    expect(matches('2001:db8:1:1:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64')).toBe(false);
    expect(matches('2001:db8:1:3::/96', '2001:db8:1:2::/64')).toBe(false);
  });

  it('a non-IP key is matched only by exactly that key', () => {
    expect(matches('unix:/run/webui.sock', 'unix:/run/webui.sock')).toBe(true);
    expect(matches('unix:/run/webui.sock', 'unix:/run/other.sock')).toBe(false);
    expect(matches('unix:/run/webui', 'unix:/run/webui.sock')).toBe(false);
    // A network never reaches a key that is no address, however wide.
    expect(matches('0.0.0.0/0', 'unix:/run/webui.sock')).toBe(false);
    expect(matches('::/0', 'unix:/run/webui.sock')).toBe(false);
  });

  it('an exact-key target does not match an address key', () => {
    expect(banTargetMatches({ kind: 'key', key: 'peer-name' }, '198.51.100.1')).toBe(false);
  });
});

describe('addressIn', () => {
  const exempt = [cidr('10.0.0.0/8'), cidr('2001:db8:ffff::/48')];

  it('is false for an empty list', () => {
    expect(addressIn([], '10.0.0.1')).toBe(false);
  });

  it('is true for an address inside one of the networks, false outside', () => {
    expect(addressIn(exempt, '10.200.3.4')).toBe(true);
    expect(addressIn(exempt, '11.0.0.1')).toBe(false);
    expect(addressIn(exempt, '2001:db8:ffff:1::1')).toBe(true);
    expect(addressIn(exempt, '[2001:db8:ffff:1::1]')).toBe(true);
    expect(addressIn(exempt, '2001:db8:fffe::1')).toBe(false);
  });

  it('reads an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(addressIn(exempt, '::ffff:10.1.2.3')).toBe(true);
    expect(addressIn(exempt, '::ffff:11.1.2.3')).toBe(false);
  });

  it('is false for a text that is no address', () => {
    expect(addressIn(exempt, 'unix:/run/webui.sock')).toBe(false);
    expect(addressIn(exempt, '')).toBe(false);
    expect(addressIn([cidr('0.0.0.0/0'), cidr('::/0')], 'not-an-ip')).toBe(false);
  });
});

describe('parseBanTarget: typos of an address are refused, not taken as keys', () => {
  it.each(['10.0.0.0/33', '300.1.2.3', '10.0.0', '2001:db8::/129', '2001:db8:::1'])('%s is refused', (text) => {
    expect(parseBanTarget(text)).toBeNull();
  });
});
