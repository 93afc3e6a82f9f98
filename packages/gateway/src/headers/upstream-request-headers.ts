import { SESSION_COOKIE } from '@webui/http-hono';
import { CALLER_CLAIM_HEADERS, HOP_BY_HOP_HEADERS, isFieldName, isServerHeader } from './header-roles.js';

/**
 * Caller headers never passed on: hop-by-hop ones, its credential, Host (the upstream's comes from its URL), the claims an
 * upstream could believe, and Expect: a caller's `Expect: 100-continue` (curl -T sends it) was this server's to meet, and
 * the runtime did; passed on, undici refuses the request (502) and Bun's and Deno's fetch wait for an answer that never comes.
 */
const NOT_FORWARDED: ReadonlySet<string> = new Set([...HOP_BY_HOP_HEADERS, ...CALLER_CLAIM_HEADERS, 'authorization', 'host', 'expect']);

/**
 * Whether a caller's header (lower-case name) reaches the upstream: not one of NOT_FORWARDED, not this server's own
 * (isServerHeader), and no name holding `_`, which CGI and WSGI upstreams read as the `-` spelling (nginx drops them too).
 */
function passesCallerHeader(name: string): boolean {
  return !NOT_FORWARDED.has(name) && !name.includes('_') && !isServerHeader(name);
}

/** Where the caller came from, as the edge resolved it. */
export interface CallerOrigin {
  clientIp: string;
  /** Whether the caller reached this server over HTTPS. */
  secure: boolean;
  /** The caller's Host header, when it sent one. */
  host: string | undefined;
}

/** Where header rules write: a web Headers, or a runtime's plain header object (plainHeaders). */
export interface HeaderSink {
  set(name: string, value: string): void;
  append(name: string, value: string): void;
  has(name: string): boolean;
}

/**
 * The headers an upstream request carries (docs/decisions/0028-gateway-forwarding-rules.md, Upstream request): the caller's that pass (passesCallerHeader) and that
 * its Connection header does not name, its Cookie without the bot_session cookie; plus X-Forwarded-For/-Proto/-Host from
 * `origin`; then `configured` (winning over the caller's); then `identity` (winning over all). One pass over the caller's.
 */
export function upstreamRequestHeaders(
  caller: Headers,
  origin: CallerOrigin,
  configured: Readonly<Record<string, string>>,
  identity: Readonly<Record<string, string>>,
): Headers {
  const headers = new Headers();
  writeUpstreamRequestHeaders(caller, caller.get('connection'), origin, configured, identity, headers);
  return headers;
}

/**
 * The rule of upstreamRequestHeaders over any header list: `caller` gives each lower-case name once, repeated fields joined
 * with ", " as a web Headers joins them (`connection` is its Connection); the result is written into `into`.
 */
export function writeUpstreamRequestHeaders(
  caller: Iterable<readonly [string, string]>,
  connection: string | null | undefined,
  origin: CallerOrigin,
  configured: Readonly<Record<string, string>>,
  identity: Readonly<Record<string, string>>,
  into: HeaderSink,
): void {
  const named = connection == null ? undefined : connectionListed(connection);
  const headers = into;
  for (const [name, value] of caller) {
    if (!passesCallerHeader(name) || named?.includes(name)) continue;
    if (name !== 'cookie') headers.append(name, value);
    else {
      const others = withoutSessionCookie(value);
      if (others !== '') headers.append(name, others);
    }
  }

  // The answer passes through as it comes, coded or not; asking for none keeps its headers true whatever the transport.
  headers.set('accept-encoding', 'identity');
  headers.set('x-forwarded-for', origin.clientIp);
  headers.set('x-forwarded-proto', origin.secure ? 'https' : 'http');
  if (origin.host !== undefined) headers.set('x-forwarded-host', origin.host);
  // for...in rather than Object.entries: no array per request for what is the same few fields on every one.
  for (const name in configured) headers.set(name, configured[name] as string);
  for (const name in identity) headers.set(name, identity[name] as string);
}

/** The header names a Connection header lists (RFC 9110 §7.6.1: they are hop-by-hop too); tokens that are no header name are ignored. */
export function connectionListed(connection: string | null): string[] {
  if (connection === null) return [];
  // The usual one token (`keep-alive`, `close`) without the split's arrays.
  if (!connection.includes(',')) {
    const token = connection.trim().toLowerCase();
    return isFieldName(token) ? [token] : [];
  }
  return connection
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter(isFieldName);
}

/** A Cookie header's pairs without this server's session cookie, in their order; empty when nothing else was there. */
export function withoutSessionCookie(cookie: string): string {
  // The usual one pair (the dashboard's own cookie) without the split's arrays.
  if (!cookie.includes(';')) {
    const pair = cookie.trim();
    return pair === '' || cookieName(pair) === SESSION_COOKIE ? '' : pair;
  }
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
