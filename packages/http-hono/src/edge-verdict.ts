import { anyCidrContains, parseIp } from '@webui/core';
import type { HttpPolicy } from './app-env.js';
import { resolveClient } from './client-ip.js';
import { namesLoopback, splitHost } from './host-header.js';
import { rememberHostVerdicts } from './remembered-host-verdicts.js';

/** What the edge needs to know about a request, whatever carries it (a Hono context, Node's IncomingMessage). */
export interface ConnectionFacts {
  peerAddress: string | undefined;
  isTls: boolean;
  /** A request header by lower-case name; repeated fields joined as a web Headers joins them. */
  header(name: string): string | undefined;
}

export type EdgeRefusal = 'ip_not_allowed' | 'duplicate_host' | 'host_not_allowed';

export interface EdgeVerdict {
  /** The address bans, the allow list and logs use: the TCP peer, or X-Forwarded-For behind a trusted proxy (DESIGN D3). */
  clientIp: string;
  /** TLS on the connection, or HTTPS as a trusted proxy says (DESIGN D6). */
  secureTransport: boolean;
  /** Why the request is refused before anything else runs, if it is. */
  refusal?: EdgeRefusal;
}

/** Decides a request's EdgeVerdict under one policy. */
export type EdgeVerdictOf = (facts: ConnectionFacts) => EdgeVerdict;

/** Who the client is and whether the transport is secure, before any rule is asked. */
export type ClientIdentityOf = (facts: ConnectionFacts) => Pick<EdgeVerdict, 'clientIp' | 'secureTransport'>;

/** Why the edge refuses a client at an address asking for a Host, or undefined when it is served. */
export type EdgeAdmissionOf = (clientIp: string, host: string) => EdgeRefusal | undefined;

/**
 * Who the client is (DESIGN D3, D6). `warnProxyWithoutForwardedFor` hears of a trusted proxy's request that names
 * no client (see forwardedForWarning).
 */
export function createClientIdentity(policy: HttpPolicy, warnProxyWithoutForwardedFor: (proxyIp: string) => void = () => undefined): ClientIdentityOf {
  return (facts) => {
    const client = resolveClient(facts.peerAddress, facts.header, policy.trustedProxies);
    if (client.proxyWithoutForwardedFor) warnProxyWithoutForwardedFor(client.ip);
    return { clientIp: client.ip, secureTransport: facts.isTls || client.forwardedHttps };
  };
}

/**
 * DESIGN D8 allowed IPs (403 to others) and the D9 Host rule (loopback binds, or any bind once allowed_hosts is set, serve only
 * loopback or listed Hosts); `host` is the Host header, '' when there is none.
 */
export function createEdgeAdmission(policy: HttpPolicy): EdgeAdmissionOf {
  // Off loopback every Host is served unless allowed_hosts names them: then nothing to parse, nothing to remember.
  const checksHost = policy.loopbackOnly || policy.allowedHosts.length > 0;
  const isServed = checksHost ? rememberHostVerdicts((host) => isServedHost(host, policy)) : () => true;
  return (clientIp, host) => {
    if (!isAllowedClient(clientIp, policy)) return 'ip_not_allowed';
    // Repeated Host fields arrive joined with ", " (no Host holds a comma): which one is meant is not ours to guess.
    if (host.includes(',')) return 'duplicate_host';
    return isServed(host) ? undefined : 'host_not_allowed';
  };
}

/** The checks every request passes first, in one call: who the client is, then whether the edge serves it. */
export function createEdgeVerdict(policy: HttpPolicy, warnProxyWithoutForwardedFor: (proxyIp: string) => void = () => undefined): EdgeVerdictOf {
  const identify = createClientIdentity(policy, warnProxyWithoutForwardedFor);
  const admission = createEdgeAdmission(policy);
  return (facts) => {
    const verdict: EdgeVerdict = identify(facts);
    const refusal = admission(verdict.clientIp, facts.header('host') ?? '');
    if (refusal) verdict.refusal = refusal;
    return verdict;
  };
}

/** DESIGN D8: a non-empty webui.allowed_ips admits only those clients, on every path. */
function isAllowedClient(clientIp: string, policy: HttpPolicy): boolean {
  if (policy.allowedIps.length === 0) return true;
  const ip = parseIp(clientIp);
  return ip !== null && anyCidrContains(policy.allowedIps, ip);
}

/** DESIGN D9 DNS-rebinding rule, asked while bound to loopback only or allowed_hosts is set: the Host must name loopback or be listed. */
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
