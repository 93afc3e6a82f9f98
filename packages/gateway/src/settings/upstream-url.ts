import * as v from 'valibot';
import { isAbsoluteSocketPath, unixSocketPath } from '@webui/core/net';
import { describeReceived } from '@webui/http-hono';

/** Where the upstream is: an http(s) origin, or a Unix socket with its path. */
export interface UpstreamAddress {
  url: string;
  socketPath?: string;
}

const FORM = 'http://host:port, https://host[:port] or unix:/absolute/path';

/** The upstream's address from `webui.upstream.url`, WEBUI_UPSTREAM_URL or --upstream-url; an error never quotes a credential. */
export function parseUpstreamUrl(text: string): { ok: true; address: UpstreamAddress } | { ok: false; error: string } {
  const socketPath = unixSocketPath(text);
  if (socketPath !== null) {
    return isAbsoluteSocketPath(socketPath)
      ? { ok: true, address: { url: text, socketPath } }
      : { ok: false, error: `must be ${FORM}: the socket path must be absolute, got ${describeReceived(text)}` };
  }
  // The URL parser would otherwise accept "http:host" and friends.
  if (!/^https?:\/\/[^/]/i.test(text) || !URL.canParse(text)) return { ok: false, error: `must be ${FORM}, got ${quoted(text)}` };
  const url = new URL(text);
  if (url.username !== '' || url.password !== '')
    return { ok: false, error: "must not hold a user or password: the upstream's credential belongs in webui.upstream.headers" };
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#'))
    return { ok: false, error: `must be ${FORM}, without a query or fragment` };
  if (url.pathname !== '/')
    return { ok: false, error: `must be ${FORM}, without a path (webui.upstream.paths says what is forwarded), got ${quoted(text)}` };
  return { ok: true, address: { url: url.origin } };
}

// A user, password or query may be a secret even in a malformed URL: they are shown as ***.
function quoted(text: string): string {
  return describeReceived(text.replace(/^([^/]*\/\/)[^/?#]*@/, '$1***@').replace(/[?#].*$/s, '?***'));
}

export const upstreamUrlSchema = v.pipe(
  v.string((issue) => `must be a string (${FORM}), got ${describeReceived(issue.input)}`),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const parsed = parseUpstreamUrl(dataset.value);
    if (parsed.ok) return parsed.address;
    addIssue({ message: parsed.error });
    return NEVER;
  }),
);
