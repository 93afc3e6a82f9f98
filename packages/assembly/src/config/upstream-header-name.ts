/** An HTTP field name (RFC 9110 token): letters, digits and !#$%&'*+-.^_`|~. */
export const isHeaderName = (name: string): boolean => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name);

// Each concerns one connection, not the request the upstream answers (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const FORWARDED = new Set(['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded']);

/** Why a header may not be configured for the upstream, or undefined when it may. */
export function refusedHeaderReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower.startsWith('x-webui-')) return 'X-WebUI-* headers tell the upstream who is calling; a configured one would forge that';
  if (FORWARDED.has(lower)) return 'the gateway sets it from the client address it resolved';
  if (lower === 'host') return "the upstream's Host comes from webui.upstream.url";
  if (lower === 'content-length') return "it belongs to each request's body";
  if (HOP_BY_HOP.has(lower)) return 'it is a hop-by-hop header, about one connection, never forwarded';
  return undefined;
}
