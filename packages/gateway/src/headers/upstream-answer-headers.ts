import { SESSION_COOKIE } from '@webui/http-hono';
import { HOP_BY_HOP_HEADERS } from './header-roles.js';
import { connectionListed, cookieName, type HeaderSink } from './upstream-request-headers.js';

/** Never passed from an upstream answer as they came: hop-by-hop headers, and Set-Cookie (passed one by one below). */
const NOT_PASSED: ReadonlySet<string> = new Set([...HOP_BY_HOP_HEADERS, 'set-cookie']);

/**
 * The headers of an upstream answer as the caller gets them (docs/decisions/0028-gateway-forwarding-rules.md, Upstream answer): without the hop-by-hop ones and
 * those its Connection header names. Every Set-Cookie passes except one that would overwrite this server's session cookie (`dropped`
 * hears of it); the upstream's caching headers pass, and an answer without Cache-Control keeps this server's no-store.
 */
export function upstreamAnswerHeaders(upstream: Headers, dropped: (cookie: string) => void): Headers {
  const headers = new Headers();
  writeUpstreamAnswerHeaders(upstream, upstream.get('connection'), upstream.getSetCookie(), dropped, headers);
  return headers;
}

/**
 * The rule of upstreamAnswerHeaders over any header list: `upstream` gives each lower-case name once (repeated fields joined
 * with ", ", Set-Cookie left out or skipped here), `connection` its Connection, `setCookies` each Set-Cookie line.
 */
export function writeUpstreamAnswerHeaders(
  upstream: Iterable<readonly [string, string]>,
  connection: string | null | undefined,
  setCookies: readonly string[],
  dropped: (cookie: string) => void,
  into: HeaderSink,
): void {
  const headers = into;
  const listed = connectionListed(connection ?? null);
  for (const [name, value] of upstream) if (!NOT_PASSED.has(name) && !listed.includes(name)) headers.append(name, value);
  for (const line of setCookies) {
    if (cookieName(line) === SESSION_COOKIE) dropped(line);
    else headers.append('set-cookie', line);
  }
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-store');
}
