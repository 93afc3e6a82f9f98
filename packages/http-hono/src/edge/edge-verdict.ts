import { anyCidrContains, parseIp } from '@webui/core/net';
import type { HttpPolicy } from '../app-env.js';
import { resolveClient } from './client-ip.js';
import { namesLoopback, splitHost } from '../host/host-header.js';
import { rememberVerdicts } from '../host/remembered-verdicts.js';

/** What the edge needs to know about a request, whatever carries it (a Hono context, Node's IncomingMessage). */
export interface ConnectionFacts {
  peerAddress: string | undefined;
  isTls: boolean;
  /** A request header by lower-case name; repeated fields joined as a web Headers joins them. */
  header(name: string): string | undefined;
}

export type EdgeRefusal = 'ip_not_allowed' | 'duplicate_host' | 'host_not_allowed';

export interface EdgeVerdict {
  /** The address bans, the allow list and logs use: the TCP peer, or X-Forwarded-For behind a trusted proxy (docs/decisions/0003-client-address.md). */
  clientIp: string;
  /** TLS on the connection, or HTTPS as a trusted proxy says (docs/decisions/0006-session-cookie.md). */
  secureTransport: boolean;
  /** Why the request is refused before anything else runs, if it is. */
  refusal?: EdgeRefusal;
}

/** Decides a request's EdgeVerdict under one policy. */
export type EdgeVerdictOf = (facts: ConnectionFacts) => EdgeVerdict;

/**
 * The checks every request passes first: who the client is, docs/decisions/0008-allowed-ips.md allowed IPs (403 to others), the docs/decisions/0009-csrf-and-dns-rebinding.md Host rule (loopback binds,
 * or any bind once allowed_hosts is set, serve only loopback or listed Hosts). `warnProxyWithoutForwardedFor` hears of a trusted
 * proxy's request that names no client (see forwardedForWarning).
 */
export function createEdgeVerdict(
  policy: HttpPolicy,
  warnProxyWithoutForwardedFor: (proxyIp: string) => void = () => undefined,
): EdgeVerdictOf {
  // Off loopback every Host is served unless allowed_hosts names them: then nothing to parse, nothing to remember.
  const checksHost = policy.loopbackOnly || policy.allowedHosts.length > 0;
  const isServed = checksHost ? rememberVerdicts((host) => isServedHost(host, policy)) : () => true;
  return (facts) => {
    const client = resolveClient(facts.peerAddress, facts.header, policy.trustedProxies);
    const secureTransport = facts.isTls || client.forwardedHttps;
    if (client.proxyWithoutForwardedFor) warnProxyWithoutForwardedFor(client.ip);
    const verdict: EdgeVerdict = { clientIp: client.ip, secureTransport };
    const host = facts.header('host') ?? '';
    if (!isAllowedClient(client.ip, policy)) verdict.refusal = 'ip_not_allowed';
    // Repeated Host fields arrive joined with ", " (no Host holds a comma): which one is meant is not ours to guess.
    else if (host.includes(',')) verdict.refusal = 'duplicate_host';
    else if (!isServed(host)) verdict.refusal = 'host_not_allowed';
    return verdict;
  };
}

/** docs/decisions/0008-allowed-ips.md: a non-empty webui.allowed_ips admits only those clients, on every path. */
function isAllowedClient(clientIp: string, policy: HttpPolicy): boolean {
  if (policy.allowedIps.length === 0) return true;
  const ip = parseIp(clientIp);
  return ip !== null && anyCidrContains(policy.allowedIps, ip);
}

/** docs/decisions/0009-csrf-and-dns-rebinding.md DNS-rebinding rule, asked while bound to loopback only or allowed_hosts is set: the Host must name loopback or be listed. */
function isServedHost(host: string, policy: HttpPolicy): boolean {
  const { name } = splitHost(host);
  if (namesLoopback(name)) return true;
  // A listed entry matches the name alone or the name with the port the request used.
  const full = host.trim().toLowerCase();
  return policy.allowedHosts.some((allowed) => {
    const entry = allowed.toLowerCase();
    return entry === full || entry === name;
  });
}
