/** An HTTP field name (RFC 9110 token): letters, digits and !#$%&'*+-.^_`|~. */
export const isFieldName = (name: string): boolean => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name);

/**
 * Headers about one connection, not the request (RFC 9110 §7.6.1), the legacy Proxy-Connection, and Transfer-Encoding (a
 * forwarded body is framed anew by the upstream connection): never passed on, never configured.
 */
export const HOP_BY_HOP_HEADERS: readonly string[] = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** What only this server tells the upstream about where the caller came from, from the client it resolved. */
export const FORWARDING_HEADERS: readonly string[] = ['forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'];

/** Names this server's identity headers start with (X-WebUI-Principal, -Scope, -Assertion). */
export const IDENTITY_HEADER_PREFIX = 'x-webui-';
