import { describe, expect, it } from 'vitest';
import { clientKey, formatIp, isLoopbackIp, parseIp, type IpAddress } from './ip-address.js';

function parsed(text: string): IpAddress {
  const ip = parseIp(text);
  if (!ip) throw new Error(`did not parse: ${text}`);
  return ip;
}

function normalised(text: string): string {
  return formatIp(parsed(text));
}

describe('parseIp / formatIp: IPv4', () => {
  it('parses dotted quads to 4 bytes and formats them back', () => {
    expect(parsed('192.0.2.1')).toEqual({ version: 4, bytes: new Uint8Array([192, 0, 2, 1]) });
    for (const text of ['0.0.0.0', '127.0.0.1', '10.0.0.255', '255.255.255.255', '1.20.100.200']) expect(normalised(text)).toBe(text);
  });

  it('tolerates surrounding whitespace', () => {
    expect(normalised(' 192.0.2.1\n')).toBe('192.0.2.1');
  });

  it('rejects garbage', () => {
    const garbage = [
      '',
      ' ',
      '1.2.3',
      '1.2.3.4.5',
      '1..2.3',
      '.1.2.3',
      '1.2.3.',
      '256.1.1.1',
      '1.2.3.256',
      '1.2.3.999',
      '1.2.3.1000',
      '01.2.3.4',
      '1.2.3.04',
      '1.2.3.00',
      '0x1.2.3.4',
      '1e2.1.1.1',
      '-1.2.3.4',
      '+1.2.3.4',
      '1.2.3.4 5',
      'a.b.c.d',
      'localhost',
      '1.2.3.4/24',
      '\u0661.2.3.4',
      '1.2.3.4:80',
    ];
    for (const text of garbage) expect(parseIp(text), JSON.stringify(text)).toBeNull();
  });
});

describe('parseIp / formatIp: IPv6', () => {
  it('parses the compressed and the full form alike', () => {
    const full = parsed('2001:0db8:0000:0000:0000:0000:0000:0001');
    expect(full.version).toBe(6);
    expect(full.bytes).toEqual(parsed('2001:db8::1').bytes);
    expect(formatIp(full)).toBe('2001:db8::1');
  });

  it('formats as RFC 5952: lower case, no leading zeros, longest zero run compressed, first on a tie, single zero kept', () => {
    const cases: Array<[string, string]> = [
      ['::', '::'],
      ['::1', '::1'],
      ['1::', '1::'],
      ['FE80::ABCD', 'fe80::abcd'],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
      ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
      ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
      ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
      ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
      ['0:0:0:0:0:0:0:0', '::'],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ];
    for (const [input, output] of cases) expect(normalised(input), input).toBe(output);
  });

  it('drops a zone and brackets', () => {
    expect(normalised('fe80::1%eth0')).toBe('fe80::1');
    expect(normalised('fe80::1%25en0.1')).toBe('fe80::1');
    expect(normalised('[2001:db8::1]')).toBe('2001:db8::1');
    expect(normalised('[fe80::1%eth0]')).toBe('fe80::1');
  });

  it('parses an embedded IPv4 tail', () => {
    expect(normalised('64:ff9b::192.0.2.1')).toBe('64:ff9b::c000:201');
    expect(normalised('1:2:3:4:5:6:1.2.3.4')).toBe('1:2:3:4:5:6:102:304');
  });

  it('normalises IPv4-mapped IPv6 to IPv4', () => {
    for (const text of [
      '::ffff:1.2.3.4',
      '::FFFF:1.2.3.4',
      '0:0:0:0:0:ffff:1.2.3.4',
      '::ffff:102:304',
      '[::ffff:1.2.3.4]',
      '0000:0000:0000:0000:0000:ffff:0102:0304',
    ]) {
      expect(parsed(text), text).toEqual({ version: 4, bytes: new Uint8Array([1, 2, 3, 4]) });
    }
    expect(normalised('::ffff:127.0.0.1')).toBe('127.0.0.1');
  });

  it('keeps addresses that only look like mapped ones as IPv6', () => {
    expect(parsed('::fffe:1.2.3.4').version).toBe(6);
    expect(parsed('::1:ffff:1.2.3.4').version).toBe(6);
    expect(parsed('::1.2.3.4').version).toBe(6);
  });

  it('rejects garbage', () => {
    const garbage = [
      ':',
      ':::',
      '::::',
      '1::2::3',
      '1:::2',
      ':1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7:8::',
      '::1:2:3:4:5:6:7:8',
      '12345::',
      'g::1',
      '2001:db8::1/64',
      'fe80::1%',
      '::ffff:1.2.3.256',
      '::ffff:01.2.3.4',
      '::ffff:1.2.3',
      '1.2.3.4::',
      '::1.2.3.4:5',
      '1:2:3:4:5:6:7:1.2.3.4',
      '[::1',
      '::1]',
      '[]',
      ' :: 1',
      '::-1',
    ];
    for (const text of garbage) expect(parseIp(text), JSON.stringify(text)).toBeNull();
  });
});

describe('clientKey (docs/decisions/0003-client-address.md)', () => {
  it('is the IPv4 address itself', () => {
    expect(clientKey(parsed('192.0.2.1'))).toBe('192.0.2.1');
    expect(clientKey(parsed('::ffff:192.0.2.1'))).toBe('192.0.2.1');
  });

  it('is the /64 prefix of an IPv6 address', () => {
    expect(clientKey(parsed('2001:db8:1:2:3:4:5:6'))).toBe('2001:db8:1:2::/64');
    expect(clientKey(parsed('2001:db8:1:2::'))).toBe('2001:db8:1:2::/64');
    expect(clientKey(parsed('2001:db8:1:2:ffff:ffff:ffff:ffff'))).toBe('2001:db8:1:2::/64');
    expect(clientKey(parsed('::1'))).toBe('::/64');
    expect(clientKey(parsed('2001:db8:1:3::1'))).not.toBe(clientKey(parsed('2001:db8:1:2::1')));
  });
});

describe('isLoopbackIp', () => {
  it('is true for 127.0.0.0/8 and ::1 (also written v4-mapped), false for anything else', () => {
    for (const text of ['127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.2']) expect(isLoopbackIp(parseIp(text) as IpAddress)).toBe(true);
    for (const text of ['128.0.0.1', '10.0.0.1', '::2', '::', '2001:db8::1']) expect(isLoopbackIp(parseIp(text) as IpAddress)).toBe(false);
  });
});
