import { HOP_BY_HOP_HEADERS, IDENTITY_HEADER_PREFIX, isServerHeader } from '../headers/header-roles.js';

/** Why a header may not be configured for the upstream, or undefined when it may. */
export function refusedHeaderReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  // X_WebUI_Scope reaches a CGI or WSGI upstream as X-WebUI-Scope would: judged by that spelling.
  if (isServerHeader(lower)) {
    return lower.replace(/_/g, '-').startsWith(IDENTITY_HEADER_PREFIX)
      ? 'X-WebUI-* headers tell the upstream who is calling; a configured one would forge that'
      : 'the gateway sets it from the client address it resolved';
  }
  if (lower === 'host') return "the upstream's Host comes from webui.upstream.url";
  if (lower === 'content-length') return "it belongs to each request's body";
  if (HOP_BY_HOP_HEADERS.includes(lower)) return 'it is a hop-by-hop header, about one connection, never forwarded';
  return undefined;
}
