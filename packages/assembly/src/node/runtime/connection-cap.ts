import { OncePerWindow } from '@webui/core';
import { anyCidrContains, clientKey, parseIp, type Cidr } from '@webui/core/net';
import type { Logger } from 'pino';

/** The part of a Node socket the cap reads: who is on the other end, how to drop it, and when it ends. */
export interface CappedSocket {
  readonly remoteAddress?: string | undefined;
  destroy(): void;
  on(event: 'close', listener: (this: CappedSocket) => void): unknown;
}

export interface ConnectionCapOptions {
  /** `webui.max_connections_per_client`. */
  perClient: number;
  /** Their connections carry many clients each (docs/decisions/0003-client-address.md): never counted. */
  trustedProxies: readonly Cidr[];
  /** A connection was closed at the cap; `client` is the address it is counted under. */
  refused(client: string): void;
}

/**
 * The TCP connections each client holds open, across every listener of the server (docs/decisions/0041-open-connections-per-client.md):
 * an address (an IPv6 /64, as bans count it) at the cap has its next connection closed at once, before TLS or a byte of HTTP
 * is read. What it holds is one count per address with a connection open, nothing more.
 */
export class ConnectionCap {
  private readonly open = new Map<string, number>();
  /** The address each counted socket is counted under, until it closes. */
  private readonly counted = new WeakMap<object, string>();
  /** The one 'close' listener of every counted socket (`this` is the socket): nothing is made per connection. */
  private readonly release: (this: CappedSocket) => void;

  constructor(private readonly options: ConnectionCapOptions) {
    const { open, counted } = this;
    this.release = function (this: CappedSocket) {
      const client = counted.get(this);
      if (client === undefined) return;
      counted.delete(this);
      const left = (open.get(client) ?? 1) - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    };
  }

  /** A 'connection' listener of a TCP server. */
  readonly admit = (socket: CappedSocket): void => {
    const ip = parseIp(socket.remoteAddress ?? '');
    if (ip === null || anyCidrContains(this.options.trustedProxies, ip)) return;
    const client = clientKey(ip);
    const count = this.open.get(client) ?? 0;
    if (count >= this.options.perClient) {
      socket.destroy();
      this.options.refused(client);
      return;
    }
    this.open.set(client, count + 1);
    this.counted.set(socket, client);
    socket.on('close', this.release);
  };

  /** Addresses with a connection open now. */
  get clients(): number {
    return this.open.size;
  }
}

const REFUSAL_LINE_EVERY_MS = 60_000;

/**
 * What the server does with a connection refused at the cap: counts it (`count`, the metric), and says so in one warning at most
 * once a minute, with how many were refused since the last one.
 */
export function reportRefusals(
  logger: Pick<Logger, 'warn'>,
  limit: number,
  count: () => void,
  now: () => number = Date.now,
): (client: string) => void {
  // One line for the whole server, not one per client: a flood from many addresses is one line a minute too.
  const lines = new OncePerWindow<'refused'>(REFUSAL_LINE_EVERY_MS);
  return (client) => {
    count();
    const held = lines.due('refused', now());
    if (held === null) return;
    logger.warn(
      { client, refused: held + 1, limit },
      'a client holds max_connections_per_client open connections: new ones from it are closed until some end',
    );
  };
}
