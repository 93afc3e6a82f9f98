import { EventEmitter } from 'node:events';
import { parseCidr, type Cidr } from '@webui/core/net';
import { describe, expect, it } from 'vitest';
import { ConnectionCap, reportRefusals } from './connection-cap.js';

/** A socket as the cap sees it: an address, destroy(), and 'close' when it ends. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(readonly remoteAddress: string | undefined) {
    super();
  }
  destroy(): void {
    this.destroyed = true;
  }
  end(): void {
    this.emit('close');
  }
}

function capOf(perClient: number, trustedProxies: Cidr[] = []) {
  const refused: string[] = [];
  const cap = new ConnectionCap({ perClient, trustedProxies, refused: (client) => refused.push(client) });
  const connect = (address: string | undefined) => {
    const socket = new FakeSocket(address);
    cap.admit(socket);
    return socket;
  };
  return { cap, refused, connect };
}

describe('ConnectionCap', () => {
  it('closes a client’s connection past the cap, and lets one in again when one of its own ends', () => {
    const { cap, refused, connect } = capOf(2);
    const [first, second] = [connect('203.0.113.7'), connect('203.0.113.7')];
    const third = connect('203.0.113.7');
    expect([first.destroyed, second.destroyed, third.destroyed]).toEqual([false, false, true]);
    expect(refused).toEqual(['203.0.113.7']);
    // Another address is not held to this one's count.
    expect(connect('203.0.113.8').destroyed).toBe(false);
    // The refused one's close does not count: it was never counted.
    third.end();
    expect(connect('203.0.113.7').destroyed).toBe(true);
    first.end();
    expect(connect('203.0.113.7').destroyed).toBe(false);
    expect(cap.clients).toBe(2);
  });

  it('counts an IPv6 /64 as one client, as bans do, and an IPv4-mapped address as its IPv4 one', () => {
    const { refused, connect } = capOf(1);
    connect('2001:db8:1:2::1');
    expect(connect('2001:db8:1:2:ffff::9').destroyed).toBe(true);
    expect(connect('2001:db8:1:3::1').destroyed).toBe(false);
    connect('198.51.100.4');
    expect(connect('::ffff:198.51.100.4').destroyed).toBe(true);
    expect(refused).toEqual(['2001:db8:1:2::/64', '198.51.100.4']);
  });

  it('never counts a trusted proxy’s connections, which carry many clients', () => {
    const { refused, connect } = capOf(1, [parseCidr('10.0.0.0/8') as Cidr]);
    const proxied = Array.from({ length: 5 }, () => connect('10.1.2.3'));
    expect(proxied.some((socket) => socket.destroyed)).toBe(false);
    expect(refused).toEqual([]);
  });

  it('holds nothing for a client once its connections have ended', () => {
    const { cap, connect } = capOf(3);
    const sockets = Array.from({ length: 300 }, (_, i) => connect(`192.0.2.${i % 100}`));
    expect(cap.clients).toBe(100);
    for (const socket of sockets) socket.end();
    expect(cap.clients).toBe(0);
  });

  it('leaves a socket with no address (already gone) alone', () => {
    const { cap, connect } = capOf(1);
    expect(connect(undefined).destroyed).toBe(false);
    expect(cap.clients).toBe(0);
  });
});

describe('reportRefusals', () => {
  it('counts every refusal and warns at most once a minute, with how many since the last warning', () => {
    const lines: Array<[Record<string, unknown>, string]> = [];
    const logger = { warn: (fields: Record<string, unknown>, msg: string) => void lines.push([fields, msg]) };
    let counted = 0;
    let now = 1_000_000;
    const refused = reportRefusals(
      logger as never,
      4,
      () => counted++,
      () => now,
    );
    refused('203.0.113.7');
    now += 59_999;
    refused('203.0.113.7');
    refused('203.0.113.9');
    now += 1;
    refused('203.0.113.9');
    expect(counted).toBe(4);
    expect(lines.map(([fields]) => fields)).toEqual([
      { client: '203.0.113.7', refused: 1, limit: 4 },
      { client: '203.0.113.9', refused: 3, limit: 4 },
    ]);
    expect(lines[0]?.[1]).toContain('max_connections_per_client');
  });
});
