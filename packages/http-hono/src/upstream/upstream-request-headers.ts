import { SESSION_COOKIE } from '../session-cookie.js';
import { FORWARDING_HEADERS, HOP_BY_HOP_HEADERS, IDENTITY_HEADER_PREFIX, isFieldName } from './header-roles.js';

/** What only this server may tell the upstream about the caller: the caller's own copies are dropped (a forged address or Host). */
const CALLER_CLAIMS = ['authorization', 'host', 'x-real-ip', ...FORWARDING_HEADERS];
/**
 * A caller's `Expect: 100-continue` (curl -T sends it) was this server's to meet, and the runtime did; passed on, undici refuses
 * the request (502) and Bun's and Deno's fetch wait for an answer that never comes (504).
 */
const MET_HERE = ['expect'];

/** Where the caller came from, as the edge resolved it. */
export interface CallerOrigin {
  clientIp: string;
  /** Whether the caller reached this server over HTTPS. */
  secure: boolean;
  /** The caller's Host header, when it sent one. */
  host: string | undefined;
}

/**
 * The headers an upstream request carries (design, Upstream request): the caller's, minus hop-by-hop ones, Expect, its credential
 * (Authorization, the bot_session cookie; other cookies stay), Host and any identity it claims (x-webui-*, forwarding headers);
 * plus X-Forwarded-For/-Proto/-Host from `origin`; then `configured` (winning over the caller's); then `identity` (winning over all).
 */
export function upstreamRequestHeaders(
  caller: Headers,
  origin: CallerOrigin,
  configured: Readonly<Record<string, string>>,
  identity: Readonly<Record<string, string>>,
): Headers {
  const headers = new Headers(caller);
  const dropped = [...HOP_BY_HOP_HEADERS, ...CALLER_CLAIMS, ...MET_HERE, ...connectionListed(caller.get('connection'))];
  for (const name of headers.keys()) if (name.startsWith(IDENTITY_HEADER_PREFIX)) dropped.push(name);
  for (const name of dropped) headers.delete(name);

  const cookie = caller.get('cookie');
  if (cookie !== null) {
    const others = withoutSessionCookie(cookie);
    if (others === '') headers.delete('cookie');
    else headers.set('cookie', others);
  }

  // The answer passes through as it comes, coded or not; asking for none keeps its headers true whatever the transport.
  headers.set('accept-encoding', 'identity');
  headers.set('x-forwarded-for', origin.clientIp);
  headers.set('x-forwarded-proto', origin.secure ? 'https' : 'http');
  if (origin.host !== undefined) headers.set('x-forwarded-host', origin.host);
  for (const [name, value] of Object.entries(configured)) headers.set(name, value);
  for (const [name, value] of Object.entries(identity)) headers.set(name, value);
  return headers;
}

/** The header names a Connection header lists (RFC 9110 §7.6.1: they are hop-by-hop too); tokens that are no header name are ignored. */
export function connectionListed(connection: string | null): string[] {
  if (connection === null) return [];
  return connection
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter(isFieldName);
}

/** A Cookie header's pairs without this server's session cookie, in their order; empty when nothing else was there. */
export function withoutSessionCookie(cookie: string): string {
  return cookie
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && cookieName(pair) !== SESSION_COOKIE)
    .join('; ');
}

/** The name of a `name=value` pair (a Cookie pair or the start of a Set-Cookie line). */
export function cookieName(pair: string): string {
  const equals = pair.indexOf('=');
  return (equals === -1 ? pair : pair.slice(0, equals)).trim();
}
