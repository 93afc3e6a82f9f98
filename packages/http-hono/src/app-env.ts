import type { Cidr, Core } from '@webui/core';
import type { Context } from 'hono';

/** The network rules the HTTP layer enforces: client IP, Secure cookie, allowed IPs, Origin and Host checks (DESIGN D3, D6, D8, D9). */
export interface HttpPolicy {
  serviceName: string;
  mode: 'production' | 'development';
  secureCookie: boolean;
  sessionExpireDays: number;
  trustedProxies: readonly Cidr[];
  allowedIps: readonly Cidr[];
  /** Extra origins allowed to make state-changing and credentialed cross-origin requests. */
  allowedOrigins: readonly string[];
  /** Extra Host names accepted while every bind address is loopback. */
  allowedHosts: readonly string[];
  /** The server's own origins (http://127.0.0.1:8001, ...), known once it listens. */
  listenOrigins(): readonly string[];
  /** True when every bind address is loopback: a foreign Host is then a DNS-rebinding attempt. */
  loopbackOnly: boolean;
}

/** Structured logger; pino's Logger fits it. */
export interface AppLogger {
  /** When present and false for 'debug', the per-request debug line is not even assembled. */
  isLevelEnabled?(level: 'debug'): boolean;
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** A request header by lower-case name, repeated fields joined as a web Headers joins them. */
export type HeaderReader = (c: Context, name: string) => string | undefined;

/** What the runtime knows about the connection that Hono's web-standard Request does not carry. */
export interface ConnectionInfo {
  /** TCP peer address, undefined when unknown (then treated as its own client). */
  peerAddress(c: Context): string | undefined;
  /** True when the connection itself is TLS. */
  isTls(c: Context): boolean;
  /**
   * Optional fast path: the request body as UTF-8 text, null when it exceeds maxBytes. Called only
   * for a request with Content-Length (no Transfer-Encoding) already checked against the limit.
   * Without it, hono's bodyLimit and c.req.text() read the web-standard Request.
   */
  readBody?(c: Context, maxBytes: number): Promise<string | null>;
  /**
   * Optional fast path: a request header by lower-case name, read without building a web-standard
   * Headers object. Repeated fields come back as a web Headers would join them.
   */
  header?(c: Context, name: string): string | undefined;
  /**
   * Optional fast path: a response header every answer to this request carries unless the answer
   * sets its own; false when it cannot for this request. The app then sets it on the context,
   * which makes Hono build a Headers object for the response.
   */
  presetHeader?(c: Context, name: string, value: string): boolean;
}

/** The app serves the core exactly as createCore builds it. */
export type WebuiServices = Core;

/** Per-request values set by the edge middleware. */
export interface WebuiEnv {
  Variables: {
    clientIp: string;
    /** The request reached us over HTTPS (TLS, or X-Forwarded-Proto from a trusted proxy). */
    secureTransport: boolean;
    sessionToken: string;
    /** How this request's headers are read: ConnectionInfo.header when the runtime has it, else Hono's. */
    readHeader: HeaderReader;
    /** Set when the runtime reads the body itself (ConnectionInfo.readBody); null means too large. */
    readBodyText: (() => Promise<string | null>) | undefined;
  };
}
