import { anyCidrContains, formatIp, parseIp, type Cidr, type IpAddress } from '@webui/core/net';

export interface ResolvedClient {
  /** The address bans, whitelists and logs use. */
  ip: string;
  /** The request came over HTTPS as far as a trusted proxy says. */
  forwardedHttps: boolean;
  /** A trusted proxy (not the Unix socket) gave no usable X-Forwarded-For: `ip` is its own, counted like any client's. */
  proxyWithoutForwardedFor: boolean;
}

/** The peer address a runtime reports for a request over its Unix socket (`webui.host = "unix:/path"`). */
export const UNIX_SOCKET_PEER = 'unix';

// A socket peer is a process on this machine, so it is counted as a local TCP client is: one address that
// bans, ban_exempt and allowed_ips can name, and that a local process cannot escape by switching transports.
const UNIX_SOCKET_CLIENT = parseIp('127.0.0.1') as IpAddress;

/**
 * docs/decisions/0003-client-address.md: the TCP peer, unless the peer is a trusted proxy; then X-Forwarded-For is walked
 * right to left and the first address that is not a trusted proxy is the client. Headers from
 * anyone else are ignored, so a client cannot pick the address it is banned under. The Unix socket's
 * peer is a trusted proxy by construction (only the socket's owner and group may connect).
 */
export function resolveClient(
  peerAddress: string | undefined,
  header: (name: string) => string | undefined,
  trustedProxies: readonly Cidr[],
): ResolvedClient {
  const overSocket = peerAddress === UNIX_SOCKET_PEER;
  const peer = peerIp(peerAddress);
  if (!peer) return { ip: peerAddress ?? 'unknown', forwardedHttps: false, proxyWithoutForwardedFor: false };
  if (!believesPeer(peerAddress, peer, trustedProxies))
    return { ip: formatIp(peer), forwardedHttps: false, proxyWithoutForwardedFor: false };

  const proto = header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const forwardedHttps = proto === 'https';
  const chain = (header('x-forwarded-for') ?? header('x-real-ip') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  // Without a usable X-Forwarded-For the proxy's own address is the client: no way around the count (a socket peer is the local client it
  // is).
  let client = peer;
  let forwarded = false;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = parseHop(chain[i] as string);
    // A malformed hop was written by the client, not by a proxy: stop at the last real address.
    if (!hop) break;
    client = hop;
    forwarded = true;
    if (!anyCidrContains(trustedProxies, hop)) break;
  }
  return { ip: formatIp(client), forwardedHttps, proxyWithoutForwardedFor: !forwarded && !overSocket };
}

/** Whether the TCP peer is a trusted proxy, whose forwarded headers are believed (the Unix socket's peer always is). */
export function isTrustedProxyPeer(peerAddress: string | undefined, trustedProxies: readonly Cidr[]): boolean {
  const peer = peerIp(peerAddress);
  return peer !== null && believesPeer(peerAddress, peer, trustedProxies);
}

function peerIp(peerAddress: string | undefined): IpAddress | null {
  if (peerAddress === UNIX_SOCKET_PEER) return UNIX_SOCKET_CLIENT;
  return peerAddress === undefined ? null : parseIp(peerAddress);
}

function believesPeer(peerAddress: string | undefined, peer: IpAddress, trustedProxies: readonly Cidr[]): boolean {
  return peerAddress === UNIX_SOCKET_PEER || anyCidrContains(trustedProxies, peer);
}

/** A forwarded hop, also in the `1.2.3.4:5678` and `[2001:db8::1]:5678` forms some proxies write. */
function parseHop(entry: string): IpAddress | null {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry);
  if (bracketed) return parseIp(bracketed[1] as string);
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry);
  return parseIp(v4WithPort ? (v4WithPort[1] as string) : entry);
}
