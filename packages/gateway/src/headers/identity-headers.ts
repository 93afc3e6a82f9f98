import type { AssertedRequest, CallerIdentity, UpstreamOptions } from '../upstream-options.js';

/**
 * X-WebUI-Principal, X-WebUI-Scope and, with a signer, X-WebUI-Assertion made for `request`: who the upstream acts for, on
 * what. The same for a forwarded request, the relay's ticket fetch and its socket's handshake.
 */
export function identityHeaders(
  upstream: Pick<UpstreamOptions, 'assertion'>,
  identity: CallerIdentity,
  request: AssertedRequest,
): Record<string, string> {
  const headers: Record<string, string> = { 'x-webui-principal': identity.principal, 'x-webui-scope': identity.scope };
  if (upstream.assertion) headers['x-webui-assertion'] = upstream.assertion(identity, request);
  return headers;
}
