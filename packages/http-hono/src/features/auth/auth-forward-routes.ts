import type { AccessOperations } from '@webui/core';
import { Hono, type Context } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../../app-env.js';
import { isTrustedProxyPeer } from '../../edge/client-ip.js';
import { originRefusal, type Refused } from '../../middleware/state-change/origin-guard.js';
import { isSafeMethod } from '../../middleware/state-change/safe-methods.js';
import { methodScopeRefusal } from '../../middleware/access/scope-guard.js';
import { sessionRefusal } from '../../middleware/access/session-guard.js';
import { authenticateRequest } from '../../session/credentials/request-session.js';
import { requestHeader } from '../../runtime-port.js';
import { callerIdentity, type AssertionSigner } from './caller-identity.js';

export const FORWARD_AUTH_ROUTE = '/auth/forward';

/** Where a proxy names the method of the request it asks about: Caddy's forward_auth, and the nginx recipe's auth_request. */
const ORIGINAL_METHOD_HEADERS = ['x-forwarded-method', 'x-original-method'] as const;

/**
 * The method of the request a proxy asks about: GET unless the TCP peer is a trusted proxy. Both headers are read and
 * the strictest wins, because a proxy sets one and passes the caller's other through: a forged GET never lowers a POST.
 */
export function originalMethod(c: Context<WebuiEnv>, policy: HttpPolicy): string {
  if (!isTrustedProxyPeer(c.get('runtime').getConnInfo(c).remote.address, policy.trustedProxies)) return 'GET';
  let method = 'GET';
  for (const name of ORIGINAL_METHOD_HEADERS) {
    const named = requestHeader(c, name)?.trim().toUpperCase();
    if (named && !isSafeMethod(named)) return named;
    if (named) method = named;
  }
  return method;
}

/** Where a proxy names the target of the request it asks about: Caddy's forward_auth sends the first, the nginx recipe the second. */
const ORIGINAL_URI_HEADERS = ['x-forwarded-uri', 'x-original-uri'] as const;

/**
 * The path (without the query) of the request a proxy asks about, which the assertion is made for; undefined unless a trusted
 * proxy names it, or when its two headers disagree (a proxy sets one and passes the caller's other through).
 */
export function originalPath(c: Context<WebuiEnv>, policy: HttpPolicy): string | undefined {
  if (!isTrustedProxyPeer(c.get('runtime').getConnInfo(c).remote.address, policy.trustedProxies)) return undefined;
  let path: string | undefined;
  for (const name of ORIGINAL_URI_HEADERS) {
    const target = requestHeader(c, name)?.trim();
    if (!target) continue;
    const named = target.split(/[?#]/, 1)[0] ?? '';
    if (!named.startsWith('/') || /[\s\x00-\x1f\x7f]/.test(named) || (path !== undefined && path !== named)) return undefined;
    path = named;
  }
  return path;
}

/**
 * GET /auth/forward, for nginx `auth_request` and Caddy `forward_auth`: 204 naming the caller in X-WebUI-Principal and
 * X-WebUI-Scope (and X-WebUI-Assertion for the original method and path, with a signer) when its cookie or key is good and covers the original method;
 * otherwise the session guard's own answers (a wrong credential counted as a guess, 429 once banned), 403 for the scope,
 * and for an unsafe method the CSRF rule on the Origin the proxy passes on. A public path for the guard: it asks itself.
 */
export function authForwardRoutes(
  operations: Pick<AccessOperations, 'authenticate'>,
  policy: HttpPolicy,
  refused: Refused,
  assertion?: AssertionSigner,
) {
  return new Hono<WebuiEnv>().get(FORWARD_AUTH_ROUTE, async (c) => {
    const method = originalMethod(c, policy);
    const crossSite = originRefusal(c, policy, refused, method);
    if (crossSite) return crossSite;
    const { outcome: session } = await authenticateRequest(c, operations);
    if (session.kind !== 'valid') return sessionRefusal(c, session);
    const outOfScope = methodScopeRefusal(c, session.principal, method);
    if (outOfScope) return outOfScope;
    const identity = callerIdentity(session.principal);
    c.header('X-WebUI-Principal', identity.principal);
    c.header('X-WebUI-Scope', identity.scope);
    // An assertion names its request: without the path a trusted proxy named, none is made (a bot that checks it refuses).
    const path = assertion ? originalPath(c, policy) : undefined;
    if (assertion && path !== undefined) c.header('X-WebUI-Assertion', assertion(identity, { method, path }));
    return c.body(null, 204);
  });
}
