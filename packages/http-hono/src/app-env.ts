import type { Core, Logger, Principal } from '@webui/core';
import type { Cidr } from '@webui/core/net';
import type { RuntimePort } from './runtime-port.js';

/** The network rules the HTTP layer enforces: client IP, Secure cookie, allowed IPs, Origin and Host checks (docs/decisions/0003-client-address.md, docs/decisions/0006-session-cookie.md, docs/decisions/0008-allowed-ips.md, docs/decisions/0009-csrf-and-dns-rebinding.md). */
export interface HttpPolicy {
  serviceName: string;
  mode: 'production' | 'development';
  secureCookie: boolean;
  sessionExpireDays: number;
  trustedProxies: readonly Cidr[];
  allowedIps: readonly Cidr[];
  /** Extra origins allowed to make state-changing and credentialed cross-origin requests. */
  allowedOrigins: readonly string[];
  /** Extra Host names accepted while every bind address is loopback; when set, the Host check holds on any bind. */
  allowedHosts: readonly string[];
  /** The server's own origins (http://127.0.0.1:8001, ...), known once it listens. */
  listenOrigins(): readonly string[];
  /** True when every bind address is loopback (or a Unix socket): a foreign Host is then a DNS-rebinding attempt. */
  loopbackOnly: boolean;
}

/** Structured logger; pino's Logger fits it (the core's Logger port, which its event recorder writes to). */
export type AppLogger = Logger;

/** The app serves the core exactly as createCore builds it. */
export type WebuiServices = Core;

/** Per-request values set by the edge middleware. */
export interface WebuiEnv {
  Variables: {
    clientIp: string;
    /** The request reached us over HTTPS (TLS, or X-Forwarded-Proto from a trusted proxy). */
    secureTransport: boolean;
    /** The session a WebSocket belongs to: the access token, or an API key's (Principal.session). */
    sessionToken: string;
    /** Who the request acts as, once the session guard let it through. */
    principal: Principal;
    /** Whether the credential came as the cookie or as `Authorization: Bearer`. */
    credentialVia: 'cookie' | 'bearer';
    /** The runtime serving this request, set first by the edge (see RuntimePort). */
    runtime: RuntimePort;
  };
}
