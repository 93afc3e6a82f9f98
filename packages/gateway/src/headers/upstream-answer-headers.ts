import { SESSION_COOKIE } from '@webui/http-hono';
import { HOP_BY_HOP_HEADERS } from './header-roles.js';
import { connectionListed, cookieName } from './upstream-request-headers.js';

/** Never passed from an upstream answer as they came: hop-by-hop headers, and Set-Cookie (passed one by one below). */
const NOT_PASSED: ReadonlySet<string> = new Set([...HOP_BY_HOP_HEADERS, 'set-cookie']);

/**
 * The headers of an upstream answer as the caller gets them (docs/decisions/0028-gateway-forwarding-rules.md, Upstream answer): without the hop-by-hop ones and
 * those its Connection header names. Every Set-Cookie passes except one that would overwrite this server's session cookie (`dropped`
 * hears of it); the upstream's caching headers pass, and an answer without Cache-Control keeps this server's no-store.
 */
export function upstreamAnswerHeaders(upstream: Headers, dropped: (cookie: string) => void): Headers {
  const headers = new Headers();
  const listed = connectionListed(upstream.get('connection'));
  for (const [name, value] of upstream) if (!NOT_PASSED.has(name) && !listed.includes(name)) headers.append(name, value);
  for (const line of upstream.getSetCookie()) {
    if (cookieName(line) === SESSION_COOKIE) dropped(line);
    else headers.append('set-cookie', line);
  }
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-store');
  return headers;
}
