import { anyCidrContains, parseIp } from '@webui/core';
import type { Context } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { errorBody } from '../error-body.js';

/** DESIGN D8: a non-empty webui.allowed_ips admits only those clients, on every path; the 403 or undefined to go on. */
export function ipRefusal(c: Context<WebuiEnv>, policy: HttpPolicy): Response | undefined {
  if (policy.allowedIps.length === 0) return undefined;
  const ip = parseIp(c.get('clientIp'));
  if (ip && anyCidrContains(policy.allowedIps, ip)) return undefined;
  return errorBody(c, 403, 'ip_not_allowed', 'This address is not in webui.allowed_ips.');
}
