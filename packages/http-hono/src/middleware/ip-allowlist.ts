import { anyCidrContains, parseIp } from '@webui/core';
import type { MiddlewareHandler } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { errorBody } from '../error-body.js';

/** DESIGN D8: a non-empty webui.allowed_ips admits only those clients, on every path. */
export function ipAllowlist(policy: HttpPolicy): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => {
    if (policy.allowedIps.length > 0) {
      const ip = parseIp(c.get('clientIp'));
      if (!ip || !anyCidrContains(policy.allowedIps, ip)) {
        return errorBody(c, 403, 'ip_not_allowed', 'This address is not in webui.allowed_ips.');
      }
    }
    await next();
  };
}
