import type { Principal } from '@webui/core';

/** Who a forwarded request acts for, as the upstream is told in X-WebUI-Principal and X-WebUI-Scope. */
export interface CallerIdentity {
  /** `session` (the access token), `key:<name>` (an API key), or `anonymous` (a public path). */
  principal: string;
  scope: 'admin' | 'read' | 'none';
}

/** The one request an assertion is made for: an upstream checks both against the request it got, so a copy is good for no other. */
export interface AssertedRequest {
  method: string;
  /** The path as sent to the upstream, without the query. */
  path: string;
}

/** Signs X-WebUI-Assertion for one request of one caller; synchronous, since it runs on every forward. */
export type AssertionSigner = (identity: CallerIdentity, request: AssertedRequest) => string;

/** The caller a principal stands for: the token's session may do everything an admin key may. */
export function callerIdentity(principal: Principal | undefined): CallerIdentity {
  if (!principal) return { principal: 'anonymous', scope: 'none' };
  return principal.kind === 'token'
    ? { principal: 'session', scope: 'admin' }
    : { principal: `key:${principal.name}`, scope: principal.scope };
}
