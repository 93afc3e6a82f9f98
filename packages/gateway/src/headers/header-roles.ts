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

/**
 * What only this server tells the upstream about where the caller came from (it sets X-Forwarded-For, -Proto and -Host from
 * the client it resolved): the whole X-Forwarded-* family (-Port, -Prefix, -Server, -Ssl...) and Forwarded.
 */
const FORWARDING_HEADER_PREFIX = 'x-forwarded-';

/** Names this server's identity headers start with (X-WebUI-Principal, -Scope, -Assertion). */
export const IDENTITY_HEADER_PREFIX = 'x-webui-';

/**
 * What frameworks believe about the client's address, the URL it asked for or its method (IIS's X-Original-URL, Express's
 * and Rack's method overrides): a caller's copy would make the upstream act on something other than what was checked here.
 */
export const CALLER_CLAIM_HEADERS: readonly string[] = [
  'x-real-ip',
  'x-client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'x-cluster-client-ip',
  'x-original-url',
  'x-original-uri',
  'x-rewrite-url',
  'x-original-method',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
];

/**
 * Whether a header (lower-case name) speaks for this server: an identity header, Forwarded or any X-Forwarded-*. A name with
 * `_` counts as its `-` spelling: CGI and WSGI upstreams read both as one variable (X_Real_IP and X-Real-IP are HTTP_X_REAL_IP).
 */
export function isServerHeader(name: string): boolean {
  const spelled = name.includes('_') ? name.replace(/_/g, '-') : name;
  return spelled.startsWith(IDENTITY_HEADER_PREFIX) || spelled.startsWith(FORWARDING_HEADER_PREFIX) || spelled === 'forwarded';
}
