import type { Context } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { isAllowedOrigin } from '../allowed-origins.js';
import { errorBody } from '../error-body.js';
import { requestHeader } from '../runtime-port.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * DESIGN D9 CSRF rule: a state-changing request whose Origin is present and not allowed gets 403.
 * hono/csrf only looks at form content types and refuses Origin-less scripts, so it fits neither way.
 */
export function originRefusal(c: Context<WebuiEnv>, policy: HttpPolicy): Response | undefined {
  const origin = requestHeader(c, 'origin');
  if (SAFE_METHODS.has(c.req.method) || origin === undefined || isAllowedOrigin(origin, c, policy)) return undefined;
  return errorBody(c, 403, 'origin_not_allowed', `Requests from origin ${JSON.stringify(origin.slice(0, 200))} are not allowed; add it to webui.allowed_origins.`);
}
