import { anyCidrContains, parseIp } from '@webui/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { errorBody } from '../error-body.js';

/** DESIGN D8: a non-empty webui.allowed_ips admits only those clients, on every path. */
export function ipAllowlist(policy: HttpPolicy): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => {
    const refusal = ipRefusal(c, policy);
    if (refusal) return refusal;
    await next();
  };
}

/** ipAllowlist's answer: the 403 for a client outside the list, undefined to go on. */
export function ipRefusal(c: Context<WebuiEnv>, policy: HttpPolicy): Response | undefined {
  if (policy.allowedIps.length === 0) return undefined;
  const ip = parseIp(c.get('clientIp'));
  if (ip && anyCidrContains(policy.allowedIps, ip)) return undefined;
  return errorBody(c, 403, 'ip_not_allowed', 'This address is not in webui.allowed_ips.');
}
